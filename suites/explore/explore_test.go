package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// fakeProxy is a replica's proxy whose request log the test writes.
type fakeProxy struct {
	proxy.Controller
	mu   sync.Mutex
	reqs []proxy.Request
	// rules added, by fault.
	rules []proxy.Rule
	// cuts is how many watches CutWatches finds open.
	cuts int
	// changed is closed when the log changes (Logged).
	changed chan struct{}
}

func (p *fakeProxy) Replica() string { return "r0" }

func (p *fakeProxy) Requests() []proxy.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

func (p *fakeProxy) RequestsAfter(id uint64) []proxy.Request {
	return slices.DeleteFunc(p.Requests(), func(r proxy.Request) bool { return r.ID <= id })
}

func (p *fakeProxy) Logged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// notify closes the channel Logged gave; p.mu is held.
func (p *fakeProxy) notify() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// log logs an answered request.
func (p *fakeProxy) log(verb, resource string) {
	id := p.begin(verb, resource)
	p.answer(id)
}

// begin logs a request in flight, as the proxy does while the API server
// has not answered it, and returns its ID.
func (p *fakeProxy) begin(verb, resource string) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := uint64(len(p.reqs) + 1)
	p.reqs = append(p.reqs, proxy.Request{ID: id, RequestInfo: proxy.RequestInfo{Verb: verb, Resource: resource}, Start: time.Now()})
	p.notify()
	return id
}

// answer ends the request id.
func (p *fakeProxy) answer(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs[id-1].End, p.reqs[id-1].Code = time.Now(), 201
	p.notify()
}

func (p *fakeProxy) AddRule(r proxy.Rule) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, r)
	return "rule", nil
}

func (p *fakeProxy) RemoveRule(string) error             { return nil }
func (p *fakeProxy) CutWatches(proxy.Match) (int, error) { return p.cuts, nil }

// fakeDriver records the workload steps it was asked for.
type fakeDriver struct {
	t   chaos.Target
	mu  sync.Mutex
	did []string
	// at is when each step was done.
	at []time.Time
}

func (d *fakeDriver) target() chaos.Target    { return d.t }
func (d *fakeDriver) limits() schedule.Limits { return schedule.DefaultLimits }
func (d *fakeDriver) resource(role string) string {
	if role == "workload" {
		return "replicasets"
	}
	return role
}
func (d *fakeDriver) replicas(sel string) []string {
	return pick(sel, []string{"r0"}, "")
}
func (d *fakeDriver) fault(context.Context, schedule.Step) (chaos.Fault, error) { return nil, nil }
func (d *fakeDriver) workload(_ context.Context, st schedule.Step) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.did, d.at = append(d.did, st.Workload), append(d.at, time.Now())
	return nil
}
func (d *fakeDriver) phase() string                    { return "steady" }
func (d *fakeDriver) phases() []string                 { return []string{"steady"} }
func (d *fakeDriver) judge(context.Context, time.Time) {}

// A step placed after a request of the subject waits for that request,
// made after the schedule started (an earlier one does not count); one
// whose request never comes is left undone, saying why.
func TestStepsWaitForTheirTrigger(t *testing.T) {
	old := triggerTimeout
	triggerTimeout = 300 * time.Millisecond
	defer func() { triggerTimeout = old }()
	p := &fakeProxy{}
	p.log("create", "pods") // before the schedule: not a trigger
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{After: &schedule.Trigger{Verb: "create", Resource: "pods"}, Workload: "scale-up"},
		{After: &schedule.Trigger{Verb: "delete", Resource: "workload"}, Workload: "scale-down"},
	}}
	var logged time.Time
	go func() {
		// The subject's create comes a little after the start.
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
		logged = time.Now()
		p.log("create", "pods")
	}()
	out := execute(context.Background(), chaos.NewTimeline(), d, s)
	if len(d.did) != 1 || d.did[0] != "scale-up" {
		t.Fatalf("did %v, want the scale-up only", d.did)
	}
	if d.at[0].Before(logged) {
		t.Errorf("the scale-up ran at %s, before its trigger at %s", d.at[0], logged)
	}
	if out[0].Skipped != "" || !strings.Contains(out[1].Skipped, "no delete of workload") {
		t.Errorf("outcomes %+v", out)
	}
}

// A step right after a request waits until that request is answered:
// begun, the API server has not acted on it yet (a create's object does
// not exist), and a pod deletion right after a create would take another
// pod. The lost create's replay missed its race this way.
func TestATriggerWaitsForTheAnswer(t *testing.T) {
	p := &fakeProxy{}
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{After: &schedule.Trigger{Verb: "create", Resource: "pods"}, Workload: "scale-up"},
	}}
	done := make(chan time.Time)
	go func() {
		// The subject's create begins a little after the start, and
		// is answered a little after that.
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
		id := p.begin("create", "pods")
		timer.Reset(100 * time.Millisecond)
		<-timer.C
		p.answer(id)
		done <- p.Requests()[0].End
	}()
	out := execute(context.Background(), chaos.NewTimeline(), d, s)
	answered := <-done
	if len(d.did) != 1 || out[0].Skipped != "" {
		t.Fatalf("did %v, outcomes %+v; want the scale-up", d.did, out)
	}
	if d.at[0].Before(answered) {
		t.Errorf("the scale-up ran at %s, while its trigger was in flight (answered at %s)", d.at[0].Format("15:04:05.000"), answered.Format("15:04:05.000"))
	}
}

// A rule of the fault proxy right after a request goes in while the
// request is still in flight: the subject's next request is the rule's.
func TestAProxyRuleGoesInAsItsTriggerBegins(t *testing.T) {
	p := &fakeProxy{}
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{After: &schedule.Trigger{Verb: "update", Resource: "pods"}, Fault: "answer-500", Resource: "pods", For: 10 * time.Millisecond},
	}}
	ruled := make(chan bool)
	go func() {
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
		id := p.begin("update", "pods")
		// Answered only once the rule is in, or after a second.
		err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, time.Second, true, func(context.Context) (bool, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			return len(p.rules) > 0, nil
		})
		p.answer(id)
		ruled <- err == nil
	}()
	out := execute(context.Background(), chaos.NewTimeline(), d, s)
	if !<-ruled {
		t.Errorf("the rule was not in while its trigger was in flight (outcome %+v)", out[0])
	}
	for name := range proxyRule {
		if _, ok := schedule.Faults[name]; !ok {
			t.Errorf("proxyRule names %q, not a fault of the vocabulary", name)
		}
	}
}

// A trigger's within waits longer than the default for its request (a
// clock-driven controller's next create may be a minute away), and a
// step without one still gives up after the default.
func TestATriggerWaitsWithinItsOwnBound(t *testing.T) {
	old := triggerTimeout
	triggerTimeout = 100 * time.Millisecond
	defer func() { triggerTimeout = old }()
	p := &fakeProxy{}
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{After: &schedule.Trigger{Verb: "create", Resource: "pods", Within: 5 * time.Second}, Workload: "scale-up"},
		{After: &schedule.Trigger{Verb: "create", Resource: "pods"}, Workload: "scale-down"},
	}}
	go func() {
		// The create comes after the default bound, within the step's own.
		timer := time.NewTimer(300 * time.Millisecond)
		<-timer.C
		p.log("create", "pods")
	}()
	out := execute(context.Background(), chaos.NewTimeline(), d, s)
	if len(d.did) != 1 || d.did[0] != "scale-up" {
		t.Fatalf("did %v, want the scale-up only", d.did)
	}
	if out[0].Skipped != "" || !strings.Contains(out[1].Skipped, "within 100ms") {
		t.Errorf("outcomes %+v", out)
	}
}

// Each fault of the vocabulary becomes the chaos fault of that name, on
// the resource the role maps to.
func TestFaultsMapOntoChaos(t *testing.T) {
	p := &fakeProxy{}
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	for name, want := range map[string]string{
		"watch-stall": "watch-stall", "watch-cut": "watch-cut", "watch-reset": "watch-reset", "forced-relist": "forced-relist",
		"event-drop": "event-drop", "event-delay": "event-delay", "partition-refuse": "partition", "partition-blackhole": "partition",
		"answer-429": "respond-429", "answer-500": "respond-500", "answer-409": "respond-409",
		"refuse-once-409": "respond-409", "refuse-once-500": "respond-500",
		"process-kill": "process-kill", "process-terminate": "process-terminate", "process-restart": "process-restart",
		"etcd-compaction": "etcd-compaction",
	} {
		f, err := faultFor(context.Background(), d, schedule.Step{Fault: name, Resource: "workload", Event: "ADDED", For: time.Second, Delay: time.Second})
		if err != nil || f.Name() != want {
			t.Errorf("%s: got %v, %v; want %s", name, f, err, want)
		}
		if r, ok := f.(*chaos.ProxyRule); ok && name != "partition-refuse" && name != "partition-blackhole" && r.Rule.Match.Resource != "replicasets" {
			t.Errorf("%s acts on %q, want replicasets", name, r.Rule.Match.Resource)
		}
	}
	// A write refused once: the next write alone, not a read, not the
	// write after it, a 409 behind a real write of its object (a
	// conflict); an answer fault refuses every request while it lasts.
	for name, want := range map[string]struct {
		count    int
		verbs    []string
		conflict bool
	}{
		"refuse-once-409": {1, proxy.WriteVerbs, true},
		"refuse-once-500": {1, proxy.WriteVerbs, false},
		"answer-409":      {0, nil, false},
	} {
		f, err := faultFor(context.Background(), d, schedule.Step{Fault: name, Resource: "workload", For: time.Second})
		r, ok := f.(*chaos.ProxyRule)
		if err != nil || !ok || r.Rule.Count != want.count || !slices.Equal(r.Rule.Match.Verbs, want.verbs) || r.Duration != time.Second || r.Rule.Conflict != want.conflict {
			t.Errorf("%s: got %+v, %v; want count %d, verbs %v, conflict %t, for 1s", name, f, err, want.count, want.verbs, want.conflict)
		}
		if err := r.Rule.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !proxyRule[name] {
			t.Errorf("%s is a rule of the proxy, and goes in as its trigger begins", name)
		}
	}
	if _, err := faultFor(context.Background(), d, schedule.Step{Fault: "pod-deletion"}); err == nil {
		t.Error("a fault the driver does not give was made")
	}
	if _, err := faultFor(context.Background(), d, schedule.Step{Fault: "watch-cut", Replica: "leader"}); err == nil {
		t.Error("a step for the leader of a subject that elects none was made")
	}
}

// A replica selection names every replica, one by index (wrapping), the
// holder, or another.
func TestPick(t *testing.T) {
	reps := []string{"a", "b", "c"}
	for sel, want := range map[string][]string{
		"": reps, "1": {"b"}, "4": {"b"}, "leader": {"c"}, "follower": {"a"}, "x": nil,
	} {
		if got := pick(sel, reps, "c"); !slices.Equal(got, want) {
			t.Errorf("pick(%q) = %v, want %v", sel, got, want)
		}
	}
	if got := pick("leader", reps, ""); got != nil {
		t.Errorf("the leader of no election: %v", got)
	}
}

// A trigger armed from a time on the schedule's clock ignores the requests
// made before it.
func TestTriggerArmedFrom(t *testing.T) {
	p := &fakeProxy{}
	d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: p}}}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{After: &schedule.Trigger{Verb: "create", Resource: "pods", From: 200 * time.Millisecond}, Workload: "scale-up"},
	}}
	var second time.Time
	go func() {
		early := time.NewTimer(50 * time.Millisecond)
		<-early.C
		p.log("create", "pods") // before the trigger is armed
		late := time.NewTimer(300 * time.Millisecond)
		<-late.C
		second = time.Now()
		p.log("create", "pods")
	}()
	execute(context.Background(), chaos.NewTimeline(), d, s)
	if len(d.at) != 1 || d.at[0].Before(second) {
		t.Fatalf("the step ran at %v, want once, after the create made once it was armed (%s)", d.at, second)
	}
}

// The status line after each schedule counts schedules, findings and
// errors, and coverage as the fault x resource x phase combinations that
// acted (a step not done or failed does not count) of those the
// capability's schedules can try; it says how many of the schedule's
// steps were not done.
func TestStatusLine(t *testing.T) {
	var out strings.Builder
	testenv.Progress = &out
	defer func() { testenv.Progress = nil }()
	st := newStats(Config{Capability: schedule.Scalable, Budget: time.Minute})
	st.spent()
	d := &fakeDriver{}
	st.possible(d)
	l := d.limits()
	want := 0
	for name, k := range schedule.Faults {
		if k.For(schedule.Scalable) && !slices.Contains(l.Without, name) && !slices.Contains(schedule.Aimed, name) {
			want++
			if k.Takes(schedule.Resource) {
				want++ // two resources, one phase
			}
		}
	}
	want += 2 // scale-up, scale-down
	if st.all != want {
		t.Errorf("%d combinations, want %d", st.all, want)
	}
	// Drawn in the refused-once pattern, a schedule tries only the aimed
	// faults (two of them, on two resources) and the workload steps.
	aimed := newStats(Config{Capability: schedule.Scalable, Budget: time.Minute, Pattern: schedule.RefusedOnce})
	aimed.possible(d)
	if aimed.all != 2*2+2 {
		t.Errorf("refused-once: %d combinations, want 6", aimed.all)
	}
	// Drawn in the crash pattern, only the stopping faults the
	// capability offers, and the workload steps.
	crash := newStats(Config{Capability: schedule.Scalable, Budget: time.Minute, Pattern: "crash"})
	crash.possible(d)
	wantCrash := 2
	for _, name := range schedule.PatternFaults("crash") {
		if k := schedule.Faults[name]; k.For(schedule.Scalable) && !slices.Contains(l.Without, name) {
			wantCrash++
			if k.Takes(schedule.Resource) {
				wantCrash++
			}
		}
	}
	if crash.all != wantCrash || wantCrash <= 2 || wantCrash >= want {
		t.Errorf("crash: %d combinations, want %d (fewer than the mix's %d)", crash.all, wantCrash, want)
	}
	st.tried(schedule.Step{Fault: "watch-stall", Resource: "pods"}, outcome{Phase: "steady"})
	st.tried(schedule.Step{Fault: "watch-stall", Resource: "pods"}, outcome{Phase: "steady"})
	st.tried(schedule.Step{Workload: "scale-up"}, outcome{Skipped: "no create of pods"})
	st.tried(schedule.Step{Fault: "watch-cut", Resource: "pods"}, outcome{Phase: "steady", Err: "the proxy refused the rule"})
	notDone := types.ReportEntry{Name: tally.NotDoneEntry, Value: types.WrapEntryValue([]string{"step 2: scale-up after the next create of pods: not done: no create of pods"})}
	// A passed spec judged what it declares.
	held := types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(verdict.Record{Property: catalog.LostNoOvershoot, Outcome: verdict.Held})}
	st.done(types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "schedule 1", State: types.SpecStatePassed,
		LeafNodeLabels: verdict.Declarations(catalog.LostNoOvershoot), ReportEntries: types.ReportEntries{notDone, held}})
	st.done(types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "schedule 2", State: types.SpecStateSkipped})
	line := out.String()
	for _, s := range []string{`"status":"schedule 1: passed (1 step(s) not done)`, "1 schedules", fmt.Sprintf("coverage 1/%d", want), "findings 0, errors 0"} {
		if !strings.Contains(line, s) {
			t.Errorf("status %s does not say %q", line, s)
		}
	}
	if strings.Contains(line, "schedule 2") {
		t.Errorf("a skipped spec was counted: %s", line)
	}
}

// The later scale is owed 30s from the change, or from when the subject's
// expectations could have expired after the recovery, if that is later.
func TestLaterScaleBound(t *testing.T) {
	recovered := time.Unix(1000, 0)
	for _, tc := range []struct {
		scaled  time.Duration // after the recovery
		timeout time.Duration
		within  time.Duration
	}{
		{scaled: 50 * time.Millisecond, timeout: 0, within: 30 * time.Second},
		{scaled: 3 * time.Second, timeout: 2 * time.Second, within: 30 * time.Second},
		{scaled: time.Second, timeout: 5 * time.Minute, within: 5*time.Minute - time.Second + 30*time.Second},
	} {
		c := laterScale(recovered.Add(tc.scaled), recovered, tc.timeout)
		if !c.Since.Equal(recovered.Add(tc.scaled)) || c.Within != tc.within {
			t.Errorf("scaled %s after recovery, timeout %s: since %s within %s, want within %s", tc.scaled, tc.timeout, c.Since.Sub(recovered), c.Within, tc.within)
		}
	}
}

// A subject whose replicas are pods cannot be restarted in place, so
// schedules for it draw no fault that stops a replica; local processes
// keep them.
func TestPodsDrawNoFaultThatStopsAReplica(t *testing.T) {
	processes := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Host: chaos.ProcessHost{}}}}}
	pods := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Host: chaos.PodHost{Namespace: "ns", Name: "r0-abc"}}}}}
	for _, f := range stopping {
		if slices.Contains(drawLimits(processes, "").Without, f) {
			t.Errorf("local processes: %s left out", f)
		}
		if !slices.Contains(drawLimits(pods, "").Without, f) {
			t.Errorf("pods: %s drawn, though a pod cannot restart in place", f)
		}
	}
	for seed := range uint64(200) {
		for _, st := range schedule.Generate(seed, schedule.Scalable, drawLimits(pods, "")).Steps {
			if slices.Contains(stopping, st.Fault) {
				t.Fatalf("seed %d drew %s for pods", seed, st.Fault)
			}
		}
	}
}
