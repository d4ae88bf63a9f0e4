package judge

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// obj is an object in ns from a JSON-like map.
func obj(name string, fields map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: fields}
	o.SetNamespace("ns")
	o.SetName(name)
	return o
}

func deleting(o *unstructured.Unstructured) *unstructured.Unstructured {
	md := o.Object["metadata"].(map[string]any)
	md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	return o
}

func withFinalizers(o *unstructured.Unstructured, fs ...string) *unstructured.Unstructured {
	o.SetFinalizers(fs)
	return o
}

func readyClaim(name, status, msg string) *unstructured.Unstructured {
	return obj(name, map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": status, "message": msg}}}})
}

func leaseObj(holder string, transitions int64) *unstructured.Unstructured {
	return obj("l", map[string]any{"spec": map[string]any{"holderIdentity": holder, "leaseTransitions": transitions}})
}

func renewedLease(holder string, renewed time.Time) *unstructured.Unstructured {
	return obj("l", map[string]any{"spec": map[string]any{"holderIdentity": holder, "renewTime": renewed.Format("2006-01-02T15:04:05.000000Z07:00")}})
}

// Every kind of Want matches the state it names and refuses one that
// misses it, after a trip through the evidence (Bound.Value).
func TestWantsMatch(t *testing.T) {
	const fin = "steadystate.dev/cleanup"
	for _, tc := range []struct {
		name    string
		want    Want
		yes, no oracle.State
	}{
		{"replicas", Replicas("ns/web", "spec.replicas", "status.replicas", ""),
			oracle.State{"ns/web": obj("web", map[string]any{"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"replicas": int64(3)}})},
			oracle.State{"ns/web": obj("web", map[string]any{"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"replicas": int64(2)}})}},
		{"ready", Ready("ns/app"),
			oracle.State{"ns/app": readyClaim("app", "True", "")},
			oracle.State{"ns/app": readyClaim("app", "False", "")}},
		{"ready message names", ReadyNames("ns/app", "ns-db"),
			oracle.State{"ns/app": readyClaim("app", "False", "cannot delete ns-db: refused")},
			oracle.State{"ns/app": readyClaim("app", "False", "deleting")}},
		{"gone", Gone("ns/app"), oracle.State{}, oracle.State{"ns/app": readyClaim("app", "True", "")}},
		{"empty", Empty(), oracle.State{}, oracle.State{"ns/x": obj("x", map[string]any{})}},
		{"running", Running(fin, "spec.paused", "ns/a"),
			oracle.State{"ns/a": withFinalizers(obj("a", map[string]any{"spec": map[string]any{"paused": false}}), fin)},
			oracle.State{"ns/a": withFinalizers(obj("a", map[string]any{"spec": map[string]any{"paused": true}}), fin)}},
		{"released", Released("ns/a", fin),
			oracle.State{"ns/a": deleting(withFinalizers(obj("a", map[string]any{}), "other"))},
			oracle.State{"ns/a": deleting(withFinalizers(obj("a", map[string]any{}), "other", fin))}},
		{"taken over", TakenOver("ns/l", leaseObj("a", 2)),
			oracle.State{"ns/l": leaseObj("b", 3)},
			oracle.State{"ns/l": leaseObj("b", 4)}},
		{"renewed after", RenewedAfter("ns/l", c0),
			oracle.State{"ns/l": renewedLease("a", c0.Add(time.Millisecond))},
			oracle.State{"ns/l": renewedLease("a", c0)}},
		{"all", All(Ready("ns/new"), Gone("ns/old")),
			oracle.State{"ns/new": readyClaim("new", "True", "")},
			oracle.State{"ns/new": readyClaim("new", "True", ""), "ns/old": readyClaim("old", "False", "")}},
	} {
		b := Bound{Convergence: oracle.Convergence{Since: c0, Within: time.Second}, History: "h", Want: tc.want}
		f := FactConvergence("p")
		back, err := f.Parse(f.Text(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m, err := back.Want.Match()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ok, why := m(tc.yes); !ok {
			t.Errorf("%s: the wanted state does not match: %s", tc.name, why)
		}
		if ok, why := m(tc.no); ok || why == "" {
			t.Errorf("%s: a state it does not want matches (why: %q)", tc.name, why)
		}
	}
}

// A Lease renewed after the kill by nobody (released), or never renewed
// since, is not held.
func TestRenewedAfterNeedsAHolder(t *testing.T) {
	m, _ := RenewedAfter("ns/l", c0).Match()
	if ok, _ := m(oracle.State{"ns/l": renewedLease("", c0.Add(time.Second))}); ok {
		t.Error("a released Lease counts as held")
	}
	if ok, why := m(oracle.State{"ns/l": renewedLease("a", c0.Add(-time.Second))}); ok || !strings.Contains(why, `held by "a"`) {
		t.Errorf("a Lease last renewed before the kill counts as held (why: %q)", why)
	}
}

// The old holder's own renewals are no takeover.
func TestTakenOverIgnoresTheOldHolder(t *testing.T) {
	m, _ := TakenOver("ns/l", leaseObj("a", 2)).Match()
	if ok, _ := m(oracle.State{"ns/l": leaseObj("a", 2)}); ok {
		t.Error("the old holder's Lease counts as taken over")
	}
	if ok, _ := m(oracle.State{}); ok {
		t.Error("no Lease counts as taken over")
	}
}
