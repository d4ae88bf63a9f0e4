package chaos

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestConcurrentCreatesExactlyOneWins(t *testing.T) {
	c := cluster(t)
	ns := c.Namespace(t, "race")
	target, _ := proxiedTarget(t, c)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "same-name", "namespace": ns},
	}}
	f := &ConcurrentCreate{N: 8, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Object: obj}
	inj, err := Inject(t.Context(), NewTimeline(), f, target)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Detail["created"] != "1" || inj.Detail["conflict"] != "7" || inj.Detail["error"] != "" {
		t.Errorf("outcomes = %v, want 1 created and 7 conflicts", inj.Detail)
	}
	for i, o := range f.Outcomes {
		if o.Creator != i || o.Start.IsZero() || o.End.Before(o.Start) {
			t.Errorf("outcome %d not recorded properly: %+v", i, o)
		}
	}
}
