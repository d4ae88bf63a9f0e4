package proxy

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestLeaseWritesRecordTheHolder: a replica's own election identity is
// learned from the API server's answers to its Lease writes, in either
// wire format; reads, releases and failed writes name no holder.
func TestLeaseWritesRecordTheHolder(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "protobuf"}[protobuf]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, cluster(t))
			leases := kubernetes.NewForConfigOrDie(e.victimConfig(protobuf)).CoordinationV1().Leases(e.ns)
			l, err := leases.Create(t.Context(), &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: "election"},
				Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("host_1234-abcd")},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Create(t.Context(), l, metav1.CreateOptions{}); err == nil {
				t.Fatal("a second create of the same Lease succeeded")
			}
			l.Spec.HolderIdentity = ptr.To("host_5678-ef01")
			if _, err := leases.Update(t.Context(), l, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Get(t.Context(), "election", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := leases.Patch(t.Context(), "election", types.MergePatchType, []byte(`{"spec":{"holderIdentity":""}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.proxy.Requests() {
				if r.Resource == "leases" {
					got = append(got, r.Verb+":"+r.Holder)
				}
			}
			want := []string{"create:host_1234-abcd", "create:", "update:host_5678-ef01", "get:", "patch:"}
			if !slices.Equal(got, want) {
				t.Errorf("recorded %q, want %q", got, want)
			}
		})
	}
}

func TestLeaseHolderReadsGzippedAnswers(t *testing.T) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(`{"kind":"Lease","spec":{"holderIdentity":"x_1"}}`))
	z.Close()
	h := http.Header{"Content-Encoding": {"gzip"}}
	if got := leaseHolder(h, b.Bytes()); got != "x_1" {
		t.Errorf("holder = %q, want x_1", got)
	}
	if got := leaseHolder(http.Header{}, []byte(`{"kind":"Status","spec":{"holderIdentity":"x_1"}}`)); got != "" {
		t.Errorf("a Status named holder %q", got)
	}
}
