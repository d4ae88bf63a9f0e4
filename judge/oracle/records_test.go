package oracle

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// roundTrip is what FromRecords did to each object before apiNumbers: it
// encoded it and decoded it again as the API machinery does.
func roundTrip(t testing.TB, v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := utiljson.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// apiNumbers gives what the encode-and-decode round trip gives, on the
// numbers where the two could part: whole and not, at int64's edges,
// beyond them, negative zero, and values of other Go types.
func TestAPINumbersIsTheRoundTrip(t *testing.T) {
	for name, v := range map[string]any{
		"whole float":               3.0,
		"fraction":                  0.5,
		"negative whole":            -7.0,
		"negative zero":             math.Copysign(0, -1),
		"int64's least":             float64(math.MinInt64),
		"two to the 63rd":           float64(1 << 63),
		"two to the 62nd and more":  float64(1<<62 + 1<<40),
		"two to the 53rd and one":   float64(1<<53 + 2),
		"1e20":                      1e20,
		"1e21":                      1e21,
		"int64":                     int64(42),
		"int":                       42,
		"int32":                     int32(-42),
		"uint8":                     uint8(7),
		"string":                    "3",
		"bool":                      true,
		"nil":                       nil,
		"typed map":                 map[string]string{"a": "b"},
		"typed slice of int":        []int{1, 2},
		"nested":                    map[string]any{"spec": map[string]any{"replicas": 2.0, "ports": []any{map[string]any{"port": 80.0, "weight": 0.25}}}},
		"nested typed map in a map": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "web"}}},
	} {
		want, got := roundTrip(t, v), apiNumbers(v)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: apiNumbers(%#v) = %#v, the round trip %#v", name, v, got, want)
		}
	}
}

// A rebuilt history is a copy: a judge that changes an object changes
// neither the records nor the next history rebuilt from them.
func TestFromRecordsCopies(t *testing.T) {
	recs := []EventRecord{{Type: "ADDED", Key: "ns/a", Object: map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": map[string]any{"replicas": 2.0}}}}
	h := FromRecords(recs)
	obj := h.events[0].Object.Object
	if r := obj["spec"].(map[string]any)["replicas"]; r != int64(2) {
		t.Errorf("spec.replicas rebuilt as %#v, want int64 2", r)
	}
	delete(obj["metadata"].(map[string]any)["labels"].(map[string]any), "app")
	if recs[0].Object["metadata"].(map[string]any)["labels"].(map[string]any)["app"] != "web" {
		t.Error("changing the rebuilt object changed the record")
	}
	if again := FromRecords(recs).events[0].Object.Object; again["metadata"].(map[string]any)["labels"].(map[string]any)["app"] != "web" {
		t.Error("changing one rebuilt object changed the next one rebuilt")
	}
}

// BenchmarkFromRecords rebuilds a history of 500 Deployment-sized
// objects as a schedule's judgement does, once per history it reads.
func BenchmarkFromRecords(b *testing.B) {
	obj := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "0d6c", "resourceVersion": "1234", "generation": 3.0,
			"labels": map[string]any{"app": "web"}, "annotations": map[string]any{"deployment.kubernetes.io/revision": "2"},
			"managedFields": []any{map[string]any{"manager": "kube-controller-manager", "operation": "Update", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:status": map[string]any{"f:replicas": map[string]any{}, "f:conditions": map[string]any{}}}}}},
		"spec": map[string]any{"replicas": 3.0, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "steadystate.invalid/none"}}}}},
		"status": map[string]any{"replicas": 3.0, "readyReplicas": 3.0, "availableReplicas": 3.0, "observedGeneration": 3.0,
			"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
				map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}}},
	}
	recs := make([]EventRecord, 500)
	for i := range recs {
		recs[i] = EventRecord{Type: "MODIFIED", Key: "ns/web", Object: obj}
	}
	b.ReportAllocs()
	for b.Loop() {
		FromRecords(recs)
	}
}
