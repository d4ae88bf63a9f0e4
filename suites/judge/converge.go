package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// FactConvergence is the fact a convergence property's Bound is recorded
// under.
func FactConvergence(propertyID string) string { return "converge/" + propertyID }

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

// Value is b as a fact's value.
func (b Bound) Value() string {
	v, _ := json.Marshal(boundFact{Since: b.Since, Within: b.Within.String(), Window: b.Window.String(), History: b.History, Want: b.Want})
	return string(v)
}

// parseBound reads a Bound from its fact's value.
func parseBound(raw string) (Bound, error) {
	var f boundFact
	var b Bound
	err := json.Unmarshal([]byte(raw), &f)
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
	return b, err
}

func (r *reader) bound(propertyID string) Bound {
	name := FactConvergence(propertyID)
	raw := r.fact(name)
	if r.err != nil {
		return Bound{}
	}
	b, err := parseBound(raw)
	if err != nil {
		r.keep(fmt.Errorf("fact %q: %w", name, err))
	}
	return b
}

// converged judges c over h as it would be judged live once T and W had
// passed: the first time m holds for W after Since, within T.
func converged(c oracle.Convergence, h *oracle.History, m oracle.Match) (oracle.Result, error) {
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
			return false, fmt.Sprintf("observed replicas %d (current generation: %v), desired %d", status, current, spec)
		}
		return true, ""
	}
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
func converges(id string) func(e *evidence.Evidence) error {
	return func(e *evidence.Evidence) error {
		_, _, err := judgeBound(e, id)
		return err
	}
}

// judgeBound judges property id's recorded Bound.
func judgeBound(e *evidence.Evidence, id string) (Bound, oracle.Result, error) {
	r := read(e)
	b := r.bound(id)
	h := r.history(b.History)
	if err := r.missing(); err != nil {
		return b, oracle.Result{}, err
	}
	m, err := b.Want.Match()
	if err != nil {
		return b, oracle.Result{}, fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactConvergence(id), err)
	}
	res, err := converged(b.Convergence, h, m)
	return b, res, err
}
