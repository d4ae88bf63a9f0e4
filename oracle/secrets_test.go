package oracle

import (
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
