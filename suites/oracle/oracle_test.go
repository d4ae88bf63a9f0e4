package oracle

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var t0 = time.Unix(1000, 0)

// replicas builds a history of one object's status.replicas at offsets.
func replicas(points ...any) *History {
	h := NewHistory()
	for i := 0; i < len(points); i += 2 {
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		unstructured.SetNestedField(obj.Object, int64(points[i+1].(int)), "status", "replicas")
		var at time.Duration
		switch v := points[i].(type) {
		case time.Duration:
			at = v
		case int: // an untyped 0
			at = time.Duration(v)
		}
		h.Add(Event{At: t0.Add(at), Type: "MODIFIED", Key: "ns/w", Object: obj})
	}
	return h
}

func want(n int64) Match {
	return func(s State) (bool, string) {
		got, _, _ := unstructured.NestedInt64(s["ns/w"].Object, "status", "replicas")
		return got == n, fmt.Sprintf("status.replicas=%d, want %d", got, n)
	}
}

func TestConvergence(t *testing.T) {
	c := Convergence{Since: t0.Add(time.Second), Within: 5 * time.Second, Window: 2 * time.Second}
	s := time.Second
	cases := []struct {
		name    string
		h       *History
		now     time.Duration
		took    time.Duration
		wantErr string
	}{
		{"converges and holds", replicas(0, 2, 3*s, 3), 10 * s, 2 * s, ""},
		{"already matching at Since", replicas(0, 3), 4 * s, 0, ""},
		{"flaps, then holds", replicas(0, 2, 2*s, 3, 3*s, 2, 4*s, 3), 10 * s, 3 * s, ""},
		{"never matches", replicas(0, 2), 10 * s, 0, "still not matching"},
		{"too slow", replicas(0, 2, 8*s, 3), 12 * s, 7 * s, "converged only after 7s"},
		{"window not yet complete", replicas(0, 2, 3*s, 3), 4 * s, 0, "matching for only 1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Check(tc.h, want(3), t0.Add(tc.now))
			if tc.wantErr == "" {
				if err != nil || r.Took != tc.took {
					t.Fatalf("Check = %+v, %v; want took %s", r, err, tc.took)
				}
				return
			}
			if !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Check error = %v, want ErrNotConverged with %q", err, tc.wantErr)
			}
		})
	}
}

func TestValidateStopsAtTheFirstFailingStage(t *testing.T) {
	errTwoWriters := errors.New("at most one replica writes at any time")
	ran := map[string]bool{}
	check := func(stage Stage, name string, err error) Check {
		return Check{Stage: stage, Name: name, Run: func() error { ran[name] = true; return err }}
	}
	err := Validate(
		check(Safety, "one writer", errTwoWriters),
		check(Liveness, "replicas", ErrNotConverged),
		check(Assumption, "fault happened", nil),
	)
	if !errors.Is(err, ErrNotConverged) || errors.Is(err, errTwoWriters) || ran["one writer"] {
		t.Fatalf("err = %v (ran %v): convergence must fail before invariants run", err, ran)
	}
	err = Validate(check(Assumption, "fault happened", errors.New("no 410 recorded")), check(Liveness, "x", nil))
	if !errors.Is(err, ErrAssumption) || !strings.Contains(err.Error(), `assumption "fault happened"`) {
		t.Fatalf("err = %v", err)
	}
	if err := Validate(check(Safety, "one writer", errTwoWriters)); !errors.Is(err, errTwoWriters) {
		t.Fatalf("err = %v", err)
	}
}

func TestMergeOrdersSourcesByTime(t *testing.T) {
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	merged := Merge(
		[]Entry{{At: at(10), Source: "pods", What: "ADDED a"}, {At: at(30), Source: "pods", What: "DELETED a"}},
		[]Entry{{At: at(20), Source: "fault", What: "stall pods: start"}, {At: at(30), Source: "fault", What: "stall pods: end"}},
	)
	var b strings.Builder
	if err := WriteMerged(&b, base, merged); err != nil {
		t.Fatal(err)
	}
	want := "   +0.010s  pods   ADDED a\n   +0.020s  fault  stall pods: start\n   +0.030s  pods   DELETED a\n   +0.030s  fault  stall pods: end\n"
	if b.String() != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", b.String(), want)
	}
}
