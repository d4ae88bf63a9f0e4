package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRedactedKeepsOtherObjectsAsTheyAre(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "plain"}}}
	if got := Redacted(cm); got != cm {
		t.Error("a ConfigMap was copied or changed")
	}
	other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Secret", "data": map[string]any{"k": "v"}}}
	if got := Redacted(other); got != other {
		t.Error("a custom kind named Secret was redacted: only core Secrets hold secrets")
	}
	if Redacted(nil) != nil {
		t.Error("nil")
	}
	s := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"k": "dmFsdWU="}}}
	got := Redacted(s)
	if v, _, _ := unstructured.NestedString(got.Object, "data", "k"); v != Hash("value") {
		t.Errorf("data.k = %q, want the hash of the decoded value", v)
	}
	if v, _, _ := unstructured.NestedString(s.Object, "data", "k"); v != "dmFsdWU=" {
		t.Error("the recorded object was changed in place")
	}
}

// The hash is keyed: a value's hash is neither its plain SHA-256 (which a
// dictionary of likely passwords finds) nor its hash under another key,
// and two equal values hash equal within the run.
func TestHashIsKeyedPerRun(t *testing.T) {
	const v = "hunter2"
	plain := sha256.Sum256([]byte(v))
	got := Hash(v)
	if !strings.HasPrefix(got, HashPrefix) || len(got) != len(HashPrefix)+64 {
		t.Fatalf("Hash = %q, want %s and 64 hex digits", got, HashPrefix)
	}
	if strings.Contains(got, hex.EncodeToString(plain[:])) {
		t.Errorf("Hash(%q) holds its unsalted SHA-256", v)
	}
	other := bytes.Repeat([]byte{7}, keySize)
	if hashWith(other, v) == got {
		t.Error("another key gives the same hash")
	}
	if Hash(v) != got || Hash(v+"x") == got {
		t.Error("equal values must hash equal within a run, and different ones differently")
	}
}

// A suite process takes the key its parent handed it out of its
// environment, so nothing it starts inherits it; a key that is not one,
// or that comes after this process hashed with its own, is refused.
func TestTakeKey(t *testing.T) {
	mine := KeyEnviron()
	_, value, _ := strings.Cut(mine, "=")
	t.Setenv(KeyEnv, value)
	if err := TakeKey(); err != nil {
		t.Errorf("this process's own key: %v", err)
	}
	if _, ok := os.LookupEnv(KeyEnv); ok {
		t.Errorf("%s left in the environment", KeyEnv)
	}
	if err := TakeKey(); err != nil {
		t.Errorf("no key handed: %v", err)
	}
	t.Setenv(KeyEnv, hex.EncodeToString(bytes.Repeat([]byte{7}, keySize)))
	if err := TakeKey(); err == nil {
		t.Error("a key handed after this process made its own was taken")
	}
	t.Setenv(KeyEnv, "not-hex")
	if err := TakeKey(); err == nil || strings.Contains(err.Error(), "not-hex") {
		t.Errorf("a bad key: %v (the message must not repeat it)", err)
	}
	if KeyEnviron() != mine {
		t.Error("the key changed")
	}
}

// A container's environment variable whose name looks secret is kept
// hashed, wherever the pod template is; the others, and the object
// recorded, are left as they are.
func TestRedactedHashesSecretLookingEnv(t *testing.T) {
	env := func(pairs ...string) []any {
		var out []any
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, map[string]any{"name": pairs[i], "value": pairs[i+1]})
		}
		return append(out, map[string]any{"name": "FROM_SECRET_KEY", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "db", "key": "k"}}})
	}
	dep := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"initContainers": []any{map[string]any{"name": "init", "env": env("API_TOKEN", "tok-value")}},
		"containers":     []any{map[string]any{"name": "app", "env": env("DB_PASSWORD", "pw-value", "LOG_LEVEL", "debug")}},
	}}}}}
	got := Redacted(dep)
	if got == dep {
		t.Fatal("a Deployment with a password in its environment was kept as it is")
	}
	data, _ := got.MarshalJSON()
	for _, v := range []string{"tok-value", "pw-value"} {
		if strings.Contains(string(data), v) {
			t.Errorf("the redacted Deployment holds %q: %s", v, data)
		}
	}
	for _, v := range []string{Hash("tok-value"), Hash("pw-value"), `"debug"`, "secretKeyRef"} {
		if !strings.Contains(string(data), v) {
			t.Errorf("the redacted Deployment lacks %q: %s", v, data)
		}
	}
	if orig, _ := dep.MarshalJSON(); !strings.Contains(string(orig), "pw-value") {
		t.Error("the recorded object was changed in place")
	}
	plain := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{
		"containers": []any{map[string]any{"name": "app", "env": env("LOG_LEVEL", "debug")}}}}}
	if Redacted(plain) != plain {
		t.Error("a Pod with no secret-looking variable was copied")
	}
}

// The names of environment variables whose values are taken for secrets.
func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"DB_PASSWORD": true, "db_pass": true, "API_TOKEN": true, "CLIENT_SECRET": true, "SIGNING_KEY": true,
		"AWS_CREDENTIALS": true, "BasicAuth": true, "LOG_LEVEL": false, "KUBECONFIG": false, "NAMESPACE": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%s) = %v, want %v", name, got, want)
		}
	}
}
