package explore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
)

// relistTimeout bounds a forced relist's wait for the re-watches: past
// the longest pause of client-go's reflector between failed lists and
// watches (its backoff stops at an interval of 30 to 60 s). A controller
// whose watches ended at once a few times in a row (a 410, a cut, a
// partition's refusals) may wait that long before it watches again, and
// that is not the harness's to call an error.
const relistTimeout = 65 * time.Second

// noTarget is why a fault step whose replica is not there when it is due
// is not done, as one whose trigger never came.
type noTarget string

func (e noTarget) Error() string { return string(e) }

// notThere reports whether err is a noTarget.
func notThere(err error) bool {
	var nt noTarget
	return errors.As(err, &nt)
}

// faultFor is the chaos fault a schedule's fault step injects on d's
// subject.
func faultFor(ctx context.Context, d driver, st schedule.Step) (chaos.Fault, error) {
	res, reps := d.resource(st.Resource), d.replicas(st.Replica)
	if st.Replica != "" && len(reps) == 0 {
		return nil, noTarget(fmt.Sprintf("no replica is %s now", st.Replica))
	}
	rule := func(f *chaos.ProxyRule) chaos.Fault {
		f.Replicas = reps
		return f
	}
	events := proxy.EventMatch{}
	if st.Event != "" {
		events.Types = []string{st.Event}
	}
	switch st.Fault {
	case "watch-stall":
		return rule(chaos.Stall(res, st.For)), nil
	case "watch-cut", "watch-reset":
		return chaos.WatchCut{Resource: res, Reset: st.Fault == "watch-reset", Replicas: reps}, nil
	case "forced-relist":
		return &chaos.ForcedRelist{Resource: res, Replicas: reps, Timeout: relistTimeout}, nil
	case "event-drop":
		drop := chaos.DropEvents(res, events, st.For)
		drop.Replicas = reps
		return lossy{drop: drop, relist: &chaos.ForcedRelist{Resource: res, Replicas: reps, Timeout: relistTimeout}}, nil
	case "event-delay":
		return rule(chaos.DelayEvents(res, events, st.Delay, st.For)), nil
	case "partition-refuse", "partition-blackhole":
		return rule(chaos.Partition("", st.Fault == "partition-blackhole", st.For)), nil
	case "answer-429", "answer-500", "answer-409", "refuse-once-409", "refuse-once-500":
		// The code is the name's last part; an answer fault refuses
		// every request of the resource while it lasts, a refuse-once
		// fault its next write alone, or its nth (the writes before
		// pass).
		var code int
		if _, err := fmt.Sscan(st.Fault[strings.LastIndex(st.Fault, "-")+1:], &code); err != nil {
			return nil, fmt.Errorf("fault %s: %w", st.Fault, err)
		}
		if strings.HasPrefix(st.Fault, "refuse-once-") {
			f := chaos.RespondWith(code, proxy.Match{Resource: res, Verbs: proxy.WriteVerbs}, 1, st.For)
			f.Rule.Skip = max(st.Nth-1, 0)
			// A lone 409 is a real conflict: its object written first,
			// so the change it announces comes to the controller's
			// watch, as it would after another party's write.
			f.Rule.Conflict = code == http.StatusConflict
			return rule(f), nil
		}
		return rule(chaos.RespondWith(code, proxy.Match{Resource: res}, 0, st.For)), nil
	case "process-kill", "process-terminate", "process-restart":
		action := chaos.ProcessAction(strings.TrimPrefix(st.Fault, "process-"))
		var each []chaos.Fault
		for _, r := range reps {
			each = append(each, chaos.ProcessFault{Replica: r, Action: action})
		}
		if len(each) == 0 {
			return nil, noTarget("the subject has no replica")
		}
		return allOf(each), nil
	case "etcd-compaction":
		return chaos.EtcdCompaction{}, nil
	}
	if f, err := d.fault(ctx, st); f != nil || err != nil {
		return f, err
	}
	return nil, fmt.Errorf("%s is not a fault this subject's exploration injects", st.Fault)
}

// lossy is event-drop as exploration injects it: the events are dropped
// while it lasts, and it ends with a forced relist of the resource. A
// watch never skips an event and goes on: the API server's watch is
// ordered and complete, and events are lost only when a watch breaks and
// its client must relist. Without the relist, a correct controller's
// cache would stay wrong for good, and its finding would be a false alarm.
type lossy struct {
	drop   *chaos.ProxyRule
	relist *chaos.ForcedRelist
}

func (f lossy) Name() string                   { return f.drop.Name() }
func (f lossy) Available(t chaos.Target) error { return f.drop.Available(t) }

// Inject drops events for the rule's duration, then forces the relist.
func (f lossy) Inject(ctx context.Context, t chaos.Target) (chaos.Injection, error) {
	inj, err := f.drop.Inject(ctx, t)
	if err != nil {
		return inj, err
	}
	relist, err := f.relist.Inject(ctx, t)
	inj.End = time.Now()
	inj.Detail = map[string]string{"relist": "forced"}
	maps.Copy(inj.Detail, relist.Detail)
	return inj, err
}

// Recover ends the drop and whatever the relist left.
func (f lossy) Recover(ctx context.Context, t chaos.Target) error {
	return errors.Join(f.drop.Recover(ctx, t), f.relist.Recover(ctx, t))
}

// allOf is one fault on several replicas, one after another.
type allOf []chaos.Fault

func (f allOf) Name() string { return f[0].Name() }

func (f allOf) Available(t chaos.Target) error {
	for _, one := range f {
		if err := one.Available(t); err != nil {
			return err
		}
	}
	return nil
}

func (f allOf) Inject(ctx context.Context, t chaos.Target) (chaos.Injection, error) {
	var (
		inj     chaos.Injection
		targets []string
		errs    []error
	)
	for i, one := range f {
		got, err := one.Inject(ctx, t)
		if i == 0 {
			inj = got
		}
		targets = append(targets, got.Target)
		errs = append(errs, err)
	}
	inj.Target, inj.End = strings.Join(targets, ","), time.Now()
	return inj, errors.Join(errs...)
}

func (f allOf) Recover(ctx context.Context, t chaos.Target) error {
	var errs []error
	for _, one := range f {
		errs = append(errs, one.Recover(ctx, t))
	}
	return errors.Join(errs...)
}
