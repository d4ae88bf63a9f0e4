package judge

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// history builds events "W3" (workload spec.replicas=3), "+a" (pod a
// created), "-a" (pod a deleted), one a second, with resource versions in
// order; "." is a second with no change.
func history(steps ...string) (workload, pods []oracle.Event) {
	at := time.Unix(100, 0)
	for i, s := range steps {
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		obj.SetResourceVersion(strconv.Itoa(10 + i))
		e := oracle.Event{At: at.Add(time.Duration(i) * time.Second), Object: obj}
		switch s[0] {
		case 'W':
			n, _ := strconv.Atoi(s[1:])
			if err := unstructured.SetNestedField(obj.Object, int64(n), "spec", "replicas"); err != nil {
				panic(err)
			}
			e.Type, e.Key = "MODIFIED", "ns/web"
			workload = append(workload, e)
		case '+':
			e.Type, e.Key = "ADDED", "ns/"+s[1:]
			pods = append(pods, e)
		case '-':
			e.Type, e.Key = "DELETED", "ns/"+s[1:]
			pods = append(pods, e)
		}
	}
	return workload, pods
}

func specReplicas(e oracle.Event) (int64, bool) {
	n, ok, _ := unstructured.NestedInt64(e.Object.Object, "spec", "replicas")
	return n, ok
}

func TestNoOvershoot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		want  bool // broken
	}{
		{"scale up, then a lost pod replaced", []string{"W2", "+a", "+b", "W3", "+c", "-c", "+d"}, false},
		{"one pod too many after a stale cache", []string{"W2", "+a", "+b", "W3", "+c", "+d"}, true},
		{"scale down: the old pods may still be going", []string{"W3", "+a", "+b", "+c", "W1", "-a", "-b"}, false},
		{"scale down, then a create above the new limit", []string{"W3", "+a", "+b", "+c", "W1", "-a", "-b", "+d"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, p := history(tc.steps...)
			err := NoOvershoot(w, p, specReplicas, nil)
			var v *oracle.Violation
			if got := err != nil; got != tc.want || (got && (!errors.Is(err, ErrOvershoot) || !errors.As(err, &v))) {
				t.Fatalf("noOvershoot = %v, want broken=%v with a time", err, tc.want)
			}
		})
	}
	// Arrival order must not matter: the pod's event arrived before the
	// scale-up's, but the API server stored the scale-up first.
	w, p := history("W2", "+a", "+b", "W3", "+c")
	p[2].At = w[1].At.Add(-time.Millisecond)
	if err := NoOvershoot(w, p, specReplicas, nil); err != nil {
		t.Fatalf("judged by arrival time: %v", err)
	}
}
