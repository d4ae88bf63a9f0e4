package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// driver is a capability's side of exploration: the subject it started in
// the spec's namespace, how a schedule's roles map onto that subject, the
// capability's own faults and workload steps, and its judgement.
type driver interface {
	target() chaos.Target
	// limits bound the schedules drawn for the subject.
	limits() schedule.Limits
	// resource is the subject's resource for a schedule's resource role
	// (schedule.Resources).
	resource(role string) string
	// replicas are the identities a step's replica selects: "" every
	// replica, an index, leader or follower.
	replicas(sel string) []string
	// fault is the capability's own fault for a step (pod-deletion,
	// leader-failover), nil when it has none of that name; a noTarget
	// error when what it would act on is not there now (the step is not
	// done, as one whose trigger never came).
	fault(ctx context.Context, st schedule.Step) (chaos.Fault, error)
	// workload does a workload step.
	workload(ctx context.Context, st schedule.Step) error
	// phase is the subject's phase now, one of phases, for coverage.
	phase() string
	phases() []string
	// judge judges the spec once every fault was recovered at recovered:
	// the capability's convergence, then its invariants over the whole
	// history. It fails the spec with the broken properties.
	judge(ctx context.Context, recovered time.Time)
}

// start runs the subject as a capability's driver in namespace ns,
// brought to a steady state (the spec's first assumption; a reconciledObjects
// subject's objects are applied and its schedule starts there, compared
// in the end with the exploration's reference runs, refs).
func start(ctx context.Context, spec *testenv.Spec, capability, ns string, refs *endStates) driver {
	switch capability {
	case schedule.Scalable:
		return startScalable(ctx, spec, ns)
	case schedule.Leader:
		return startLeader(ctx, spec, ns)
	case schedule.Composite:
		return startComposite(ctx, spec, ns)
	case schedule.Movable:
		return startMovable(ctx, spec, ns)
	case schedule.Steady:
		return startSteady(ctx, spec, ns, refs)
	}
	Fail(fmt.Sprintf("exploration of capability %q is not built: explore %s", capability, strings.Join(schedule.Explorable, ", ")))
	return nil
}

// pick resolves a step's replica selection over replicas (identities in
// order), with holder the Lease holder for leader and follower ("" when
// the subject elects none).
func pick(sel string, replicas []string, holder string) []string {
	switch sel {
	case "":
		return replicas
	case "leader":
		if holder == "" {
			return nil
		}
		return []string{holder}
	case "follower":
		for _, r := range replicas {
			if r != holder {
				return []string{r}
			}
		}
		return nil
	}
	var i int
	if _, err := fmt.Sscan(sel, &i); err != nil || len(replicas) == 0 {
		return nil
	}
	return []string{replicas[i%len(replicas)]}
}

// stopping are the faults that stop a replica: the spec restarts a stopped
// replica in place before it judges, and later steps act on it by name.
var stopping = []string{"process-kill", "process-terminate", "process-restart", "leader-failover"}

// drawLimits are d's limits for drawing a schedule, less the faults that
// stop a replica when one of its replicas cannot restart in place (a pod,
// whose Deployment replaces it under another name the spec does not
// follow): drawn there, such a schedule could only end in an error.
func drawLimits(d driver, pattern string) schedule.Limits {
	l := d.limits()
	l.Pattern = pattern
	if !restartable(d.target()) {
		for _, f := range stopping {
			if !slices.Contains(l.Without, f) {
				l.Without = append(l.Without, f)
			}
		}
	}
	return l
}

// restartable reports whether every replica the harness runs can restart
// in place (a local process can; a pod cannot).
func restartable(t chaos.Target) bool {
	for _, r := range t.Replicas {
		if r.Host == nil {
			continue
		}
		if _, ok := r.Host.(chaos.Restarter); !ok {
			return false
		}
	}
	return true
}
