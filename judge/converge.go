package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// FactConvergence is the fact a convergence property's Bound is recorded
// under.
func FactConvergence(propertyID string) Fact[Bound] {
	return Fact[Bound]{Name: "converge/" + propertyID}
}

// Bound is a convergence check as evidence records it: the convergence
// (when the desired state changed, T and W), the history it is judged
// over, and the state it waits for.
type Bound struct {
	oracle.Convergence
	History string
	Want    Want
}

type boundFact struct {
	Since          time.Time
	Within, Window string
	History        string
	Want           Want
}

// MarshalText is b as its fact's value: JSON, T and W as durations.
func (b Bound) MarshalText() ([]byte, error) {
	return json.Marshal(boundFact{Since: b.Since, Within: b.Within.String(), Window: b.Window.String(), History: b.History, Want: b.Want})
}

// UnmarshalText reads b from its fact's value.
func (b *Bound) UnmarshalText(raw []byte) error {
	var f boundFact
	err := json.Unmarshal(raw, &f)
	if err == nil {
		b.Within, err = time.ParseDuration(f.Within)
	}
	if err == nil {
		b.Window, err = time.ParseDuration(f.Window)
	}
	if err == nil && f.History == "" {
		err = errors.New("names no history")
	}
	b.Since, b.History, b.Want = f.Since, f.History, f.Want
	return err
}

func (r *reader) bound(propertyID string) Bound {
	return get(r, FactConvergence(propertyID))
}

// converged judges c over h as it would be judged live once T and W had
// passed: the first time m holds for W after Since, within T.
func converged(c oracle.Convergence, h oracle.Source, m oracle.Match) (oracle.Result, error) {
	return c.Check(h, m, c.Since.Add(c.Within+c.Window))
}

// replicasConverged matches a state where workload key's observed replicas
// (statusPath) equal its desired replicas (specPath), for its current
// generation when generationPath is set.
func replicasConverged(key, specPath, statusPath, generationPath string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		obj := s[key]
		if obj == nil {
			return false, "the workload does not exist"
		}
		spec, err := intAt(obj, specPath)
		if err != nil {
			return false, err.Error()
		}
		status, err := intAt(obj, statusPath)
		if err != nil {
			return false, err.Error()
		}
		current := true
		if generationPath != "" {
			observed, err := intAt(obj, generationPath)
			if err != nil {
				return false, err.Error()
			}
			current = observed == obj.GetGeneration()
		}
		if status != spec || !current {
			gen := ""
			if generationPath != "" {
				gen = fmt.Sprintf(", %s is the current generation: %v", generationPath, current)
			}
			return false, fmt.Sprintf("observed replicas (%s) %d, desired (%s) %d%s", statusPath, status, specPath, spec, gen)
		}
		return true, ""
	}
}

// podsConverged matches a state where status does and the workload key's
// live pods, the objects of history pods in the joined state, are as many
// as its desired replicas (specPath).
func podsConverged(key, specPath, pods string, status oracle.Match) oracle.Match {
	prefix := oracle.JoinedKey(pods, "")
	return func(s oracle.State) (bool, string) {
		if ok, why := status(s); !ok {
			return false, why
		}
		spec, err := intAt(s[key], specPath)
		if err != nil {
			return false, err.Error()
		}
		var live int64
		for k, obj := range s {
			if strings.HasPrefix(k, prefix) && livePod(obj) {
				live++
			}
		}
		if live != spec {
			return false, fmt.Sprintf("the status claims %d of %d replicas, but %d pods are live", spec, spec, live)
		}
		return true, ""
	}
}

// livePod: not being deleted, not finished.
func livePod(obj *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
	return obj.GetDeletionTimestamp() == nil && phase != "Succeeded" && phase != "Failed"
}

// Source is what b is judged over: its history, joined with the others
// its wanted state reads (oracle.Join); histories gives each by name, nil
// when there is none.
func (b Bound) Source(histories func(name string) *oracle.History) (oracle.Source, error) {
	h := histories(b.History)
	if h == nil {
		return nil, fmt.Errorf("history %q: %w", b.History, evidence.ErrMissing)
	}
	names := b.Want.Histories()
	if len(names) == 0 {
		return h, nil
	}
	others := map[string]*oracle.History{}
	for _, name := range names {
		if others[name] = histories(name); others[name] == nil {
			return nil, fmt.Errorf("history %q: %w", name, evidence.ErrMissing)
		}
	}
	return oracle.Join(h, others), nil
}

// intAt reads the integer at a dotted field path of obj (JSON numbers
// decode as int64 or float64).
func intAt(obj *unstructured.Unstructured, path string) (int64, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(path, ".")...)
	if err == nil && found {
		switch n := v.(type) {
		case int64:
			return n, nil
		case float64:
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("%s is not an integer on %s/%s", path, obj.GetNamespace(), obj.GetName())
}

// converges is the offline judge of a convergence property: its recorded
// Bound, replayed over the history it names.
func converges(id string) Judge {
	return func(e *evidence.Evidence) error {
		_, _, err := judgeBound(e, id)
		return err
	}
}

// judgeBound judges property id's recorded Bound.
func judgeBound(e *evidence.Evidence, id string) (Bound, oracle.Result, error) {
	r := read(e)
	b := r.bound(id)
	if err := r.missing(); err != nil {
		return b, oracle.Result{}, err
	}
	src, err := b.Source(func(name string) *oracle.History {
		h, _ := e.History(name)
		return h
	})
	if err != nil {
		return b, oracle.Result{}, fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
	}
	m, err := b.Want.Match()
	if err != nil {
		return b, oracle.Result{}, fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactConvergence(id), err)
	}
	res, err := converged(b.Convergence, src, m)
	return b, res, err
}
