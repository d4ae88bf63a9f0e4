package judge

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// The workload's field paths a convergence judge reads, besides
// FactReplicasPath: observed replicas, and the generation they describe
// (optional).
const (
	FactStatusReplicasPath     = "statusReplicasPath"
	FactObservedGenerationPath = "observedGenerationPath"
)

// FactConvergence is the fact a convergence property's bound is recorded
// under: when the desired state changed, T and W (see ConvergenceValue).
func FactConvergence(propertyID string) string { return "converge/" + propertyID }

type convergenceFact struct {
	Since          time.Time
	Within, Window string
}

// ConvergenceValue is c as a fact's value.
func ConvergenceValue(c oracle.Convergence) string {
	b, _ := json.Marshal(convergenceFact{Since: c.Since, Within: c.Within.String(), Window: c.Window.String()})
	return string(b)
}

func (r *reader) convergence(propertyID string) oracle.Convergence {
	name := FactConvergence(propertyID)
	var f convergenceFact
	var c oracle.Convergence
	raw := r.fact(name)
	if r.err != nil {
		return c
	}
	err := json.Unmarshal([]byte(raw), &f)
	if err == nil {
		c.Within, err = time.ParseDuration(f.Within)
	}
	if err == nil {
		c.Window, err = time.ParseDuration(f.Window)
	}
	if err != nil {
		r.keep(fmt.Errorf("fact %q: %w", name, err))
	}
	c.Since = f.Since
	return c
}

// Converged judges c over h as it would be judged live once T and W had
// passed: the first time m holds for W after Since, within T.
func Converged(c oracle.Convergence, h *oracle.History, m oracle.Match) (oracle.Result, error) {
	return c.Check(h, m, c.Since.Add(c.Within+c.Window))
}

// ReplicasConverged matches a state where workload key's observed replicas
// (statusPath) equal its desired replicas (specPath), for its current
// generation when generationPath is set.
func ReplicasConverged(key, specPath, statusPath, generationPath string) oracle.Match {
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

// workloadConverges is the offline judge of a scalable workload's
// convergence property id: its recorded bound, over the workload history.
func workloadConverges(id string) func(e *evidence.Evidence) error {
	return func(e *evidence.Evidence) error {
		r := read(e)
		key, spec, status := r.fact(FactWorkload), r.fact(FactReplicasPath), r.fact(FactStatusReplicasPath)
		c, h := r.convergence(id), r.history(HistoryWorkload)
		if err := r.missing(); err != nil {
			return err
		}
		_, err := Converged(c, h, ReplicasConverged(key, spec, status, e.Facts[FactObservedGenerationPath]))
		return err
	}
}
