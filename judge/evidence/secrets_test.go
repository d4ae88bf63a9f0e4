package evidence_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// A Secret written on a real API server and recorded as evidence leaves
// none of its values in the kept evidence, plain or base64, only its keys
// and a hash of each value; a changed value is still seen as a change.
func TestNoSecretValueInKeptEvidence(t *testing.T) {
	c := localtest.Start(t, local.Options{})
	ns := c.Namespace(t, "secrets")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dyn := dynamic.NewForConfigOrDie(c.REST)
	h, stop, err := oracle.Record(ctx, dyn, corev1.SchemeGroupVersion.WithResource("secrets"), ns)
	if err != nil {
		t.Fatal(err)
	}
	values := []string{"hunter2-first-value", "hunter2-second-value", "string-data-value"}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns,
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"` + values[0] + `"}}`}},
		Data: map[string][]byte{"password": []byte(values[0])}, StringData: map[string]string{"token": values[2]}}
	if _, err := c.Kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Data["password"], s.StringData = []byte(values[1]), nil
	if _, err := c.Kube.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	localtest.Eventually(t, 30*time.Second, "the update recorded", func() bool { return len(h.Events()) >= 2 })
	stop()

	col := evidence.NewCollector("secrets", time.Now())
	col.AddHistory("secrets", h)
	dir := t.TempDir()
	if err := col.WriteArtifacts(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{evidence.FileName, evidence.HistoryFileName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
				if strings.Contains(string(data), form) {
					t.Errorf("%s holds a secret value (%q)", name, form)
				}
			}
		}
	}
	evs := h.Events()
	first, last := evs[0].Object, evs[len(evs)-1].Object
	pw := func(u *unstructured.Unstructured) string {
		v, _, _ := unstructured.NestedString(u.Object, "data", "password")
		return v
	}
	if pw(first) != oracle.Hash(values[0]) || pw(last) != oracle.Hash(values[1]) {
		t.Errorf("password recorded as %q then %q; want the hashes of the two values", pw(first), pw(last))
	}
	if tok, _, _ := unstructured.NestedString(first.Object, "data", "token"); tok != oracle.Hash(values[2]) {
		t.Errorf("stringData's token recorded as %q; want its hash", tok)
	}
}
