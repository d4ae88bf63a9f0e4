package judge

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

var cp0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

// rsEvidence: ReplicaSet ns/web (uid rs) reports 3 of 3 replicas from
// 1s, and the pods named exist from 0.5s, owned by owners[i].
func rsEvidence(pods []string, owners []string) *evidence.Evidence {
	rs := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "ns", "uid": "rs", "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(3)},
		"status":   map[string]any{"replicas": int64(3), "observedGeneration": int64(1)},
	}}
	rsh := oracle.NewHistory()
	rsh.Add(oracle.Event{At: cp0.Add(time.Second), Type: "ADDED", Key: "ns/web", Object: rs})
	ph := oracle.NewHistory()
	for i, name := range pods {
		p := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name, "namespace": "ns"}}}
		p.SetOwnerReferences([]metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: types.UID(owners[i]), Controller: new(true)}})
		ph.Add(oracle.Event{At: cp0.Add(500 * time.Millisecond), Type: "ADDED", Key: "ns/" + name, Object: p})
	}
	b := Bound{Convergence: oracle.Convergence{Since: cp0, Within: 30 * time.Second, Window: time.Second}, History: HistoryReplicaSets,
		Want: Replicas("ns/web", "spec.replicas", "status.replicas", "status.observedGeneration")}
	return &evidence.Evidence{Start: cp0, End: cp0.Add(10 * time.Second),
		Histories: map[string][]oracle.EventRecord{HistoryReplicaSets: rsh.Records(), HistoryPods: ph.Records()},
		Facts:     map[string]string{FactConvergence(catalog.CPReplicaSetScalesUp.ID).Name: FactConvergence(catalog.CPReplicaSetScalesUp.ID).Text(b)}}
}

// A ReplicaSet converges when its status says so and the pods agree: a
// status the pods contradict is not convergence.
func TestReplicaSetConvergenceCountsThePods(t *testing.T) {
	judge := Offline[catalog.CPReplicaSetScalesUp.ID]
	for _, tc := range []struct {
		name   string
		pods   []string
		owners []string
		want   verdict.Outcome
		reason string
	}{
		{"three pods of the ReplicaSet", []string{"a", "b", "c"}, []string{"rs", "rs", "rs"}, verdict.Held, ""},
		{"two pods for a status of three", []string{"a", "b"}, []string{"rs", "rs"}, verdict.Broken, "status.replicas is 3, but 2 live pods exist"},
		{"a pod of someone else", []string{"a", "b", "c"}, []string{"rs", "rs", "other"}, verdict.Broken, "pods [ns/c] are not controlled by ns/web"},
	} {
		got := oracle.Judge(cp0, catalog.CPReplicaSetScalesUp, judge(rsEvidence(tc.pods, tc.owners)))
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %q", tc.name, got.Outcome, got.Reason)
		}
	}
}

// The owner must still be there, deleting, when the free dependents go.
func TestGCHoldsOwner(t *testing.T) {
	cm := func(name string, deleting bool, finalizers ...string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name, "namespace": "ns"}}}
		if deleting {
			o.SetDeletionTimestamp(&metav1.Time{Time: cp0})
		}
		o.SetFinalizers(finalizers)
		return o
	}
	evidenceOf := func(ownerGoes bool) *evidence.Evidence {
		h := oracle.NewHistory()
		for _, n := range []string{"owner", "dependent-0", "dependent-1", "dependent-2"} {
			h.Add(oracle.Event{At: cp0, Type: "ADDED", Key: "ns/" + n, Object: cm(n, false)})
		}
		h.Add(oracle.Event{At: cp0.Add(100 * time.Millisecond), Type: "MODIFIED", Key: "ns/owner", Object: cm("owner", true, metav1.FinalizerDeleteDependents)})
		h.Add(oracle.Event{At: cp0.Add(200 * time.Millisecond), Type: "MODIFIED", Key: "ns/dependent-0", Object: cm("dependent-0", true, "hold")})
		if ownerGoes {
			h.Add(oracle.Event{At: cp0.Add(250 * time.Millisecond), Type: "DELETED", Key: "ns/owner", Object: cm("owner", true)})
		}
		h.Add(oracle.Event{At: cp0.Add(300 * time.Millisecond), Type: "DELETED", Key: "ns/dependent-1", Object: cm("dependent-1", true)})
		h.Add(oracle.Event{At: cp0.Add(300 * time.Millisecond), Type: "DELETED", Key: "ns/dependent-2", Object: cm("dependent-2", true)})
		b := Bound{Convergence: oracle.Convergence{Since: cp0, Within: 30 * time.Second, Window: time.Second}, History: HistoryConfigMaps,
			Want: All(Gone("ns/dependent-1"), Gone("ns/dependent-2"))}
		return &evidence.Evidence{Start: cp0, End: cp0.Add(10 * time.Second),
			Histories: map[string][]oracle.EventRecord{HistoryConfigMaps: h.Records()},
			Facts: map[string]string{FactConvergence(catalog.CPGCHoldsOwner.ID).Name: FactConvergence(catalog.CPGCHoldsOwner.ID).Text(b),
				FactGCOwner.Name: "ns/owner", FactGCHeld.Name: "ns/dependent-0"}}
	}
	judge := Offline[catalog.CPGCHoldsOwner.ID]
	if got := oracle.Judge(cp0, catalog.CPGCHoldsOwner, judge(evidenceOf(false))); got.Outcome != verdict.Held {
		t.Errorf("held owner: %s %q", got.Outcome, got.Reason)
	}
	if got := oracle.Judge(cp0, catalog.CPGCHoldsOwner, judge(evidenceOf(true))); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "the owner ns/owner is gone while its blocking dependent ns/dependent-0 remains") {
		t.Errorf("owner removed early: %s %q", got.Outcome, got.Reason)
	}
}
