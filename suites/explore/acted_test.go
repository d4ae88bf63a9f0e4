package explore

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// podDeletion is a driver's own fault whose injection or recovery fails
// when told to.
type podDeletion struct{ injectErr, recoverErr error }

func (f podDeletion) Name() string                 { return "pod-deletion" }
func (f podDeletion) Available(chaos.Target) error { return nil }
func (f podDeletion) Inject(context.Context, chaos.Target) (chaos.Injection, error) {
	return chaos.Injection{Target: "ns/web-1", Start: time.Now(), End: time.Now()}, f.injectErr
}
func (f podDeletion) Recover(context.Context, chaos.Target) error { return f.recoverErr }

// faultyDriver gives a pod deletion of its own.
type faultyDriver struct {
	fakeDriver
	deletion podDeletion
}

func (d *faultyDriver) fault(_ context.Context, st schedule.Step) (chaos.Fault, error) {
	if st.Fault == "pod-deletion" {
		return d.deletion, nil
	}
	return nil, nil
}

// outcomeEvidence is the evidence of a schedule's steps as run records
// it: the timeline, and how many fault steps ran.
func outcomeEvidence(tl *chaos.Timeline, s schedule.Schedule, out []outcome) *evidence.Evidence {
	ran := 0
	for _, o := range out {
		if o.ranFault(s) {
			ran++
		}
	}
	return &evidence.Evidence{Faults: tl.Injections(), Facts: map[string]string{judge.FactFaultSteps.Name: strconv.Itoa(ran)}}
}

// Every fault step that ran is on the timeline, failed or not: one whose
// injection failed, one whose recovery failed, one refused before its
// injection (a process fault on a replica the harness cannot act on). The
// premise that the steps acted then does not hold, naming each. A step
// whose replica is not there is not done, and not on the timeline.
func TestFailedStepsBreakTheStepsActedPremise(t *testing.T) {
	d := &faultyDriver{fakeDriver: fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Proxy: &fakeProxy{}}}}},
		deletion: podDeletion{injectErr: errors.New("no pod to delete")}}
	s := schedule.Schedule{Capability: schedule.Scalable, Steps: []schedule.Step{
		{Fault: "pod-deletion"},
		{Fault: "process-kill"},
		{Fault: "watch-cut", Resource: "pods", Replica: "leader"},
		{Workload: "scale-up"},
	}}
	tl := chaos.NewTimeline()
	out := execute(context.Background(), tl, d, s)
	if out[0].Err == "" || out[1].Err == "" || out[2].Skipped != "no replica is leader now" || !out[3].acted() {
		t.Fatalf("outcomes %+v", out)
	}
	if n := len(tl.Injections()); n != 2 {
		t.Fatalf("the timeline records %d injections, want the two fault steps that ran: %+v", n, tl.Injections())
	}
	err := judge.StepsActed(outcomeEvidence(tl, s, out))
	for _, want := range []string{"pod-deletion at", "no pod to delete", "process-kill at", "neither a local process nor a pod"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("premise: %v, want it to say %q", err, want)
		}
	}

	// A recovery that failed.
	d.deletion = podDeletion{recoverErr: errors.New("the pod's replacement was not deleted")}
	s.Steps = s.Steps[:1]
	tl = chaos.NewTimeline()
	out = execute(context.Background(), tl, d, s)
	if err := judge.StepsActed(outcomeEvidence(tl, s, out)); err == nil || !strings.Contains(err.Error(), "recover pod-deletion") {
		t.Errorf("a failed recovery: premise %v", err)
	}
	// And one that acted.
	d.deletion = podDeletion{}
	tl = chaos.NewTimeline()
	out = execute(context.Background(), tl, d, s)
	if err := judge.StepsActed(outcomeEvidence(tl, s, out)); err != nil {
		t.Errorf("a pod deletion that acted: premise %v", err)
	}
}

// rejudge judges recorded evidence as its spec is judged: the premise
// that the steps acted first when premise is set (the old judgement had
// none), then every property the run recorded, each by its offline judge;
// and classifies the spec from the records, as the reports do.
func rejudge(t *testing.T, e *evidence.Evidence, premise bool) verdict.Spec {
	t.Helper()
	var checks []oracle.Check
	add := func(p verdict.Property) {
		checks = append(checks, oracle.Check{Property: p, Run: func() error { return judge.Offline[p.ID](e) }})
	}
	if premise {
		add(catalog.ExploreStepsActed)
	}
	for _, rec := range e.Records {
		add(rec.Property)
	}
	records := oracle.Validate(e.Start, checks...)
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: e.Spec, State: types.SpecStatePassed}
	if msg := verdict.Message(records); msg != "" {
		r.State, r.Failure = types.SpecStateFailed, types.Failure{Message: msg}
	}
	for _, rec := range records {
		r.ReportEntries = append(r.ReportEntries, types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(rec)})
	}
	return verdict.Classify(Title, r)
}

// A recorded exploration finding (the seeded expectations-never-expire
// bug's lost create) whose pod deletion had failed was judged a finding:
// its schedule was judged as if the fault had acted. With the premise
// that every fault step acted, the same evidence is an error naming the
// failed fault, and the properties it seemed to break are not evaluated.
// The run predates the count of fault steps that ran: its step facts tell
// three, all on its timeline.
func TestAFailedInjectionMakesTheScheduleAnError(t *testing.T) {
	e, err := evidence.Read(filepath.Join("..", "..", "judge", "testdata", "explore-expectations-never-expire-lost-create.json"))
	if err != nil {
		t.Fatal(err)
	}
	e.Facts[judge.FactFaultSteps.Name] = "3"
	if got := rejudge(t, e, true); got.Outcome != verdict.BrokenSpec {
		t.Fatalf("the recorded finding, its faults acting, re-judged %s: %s", got.Outcome, got.Reason)
	}
	failed := 0
	for i := range e.Faults {
		if e.Faults[i].Fault == "pod-deletion" {
			e.Faults[i].Error = "delete pod web-jmjs6: the server was unable to return a response in the time allotted"
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("the recorded schedule has no pod deletion")
	}
	if old := rejudge(t, e, false); old.Outcome != verdict.BrokenSpec {
		t.Errorf("without the premise the schedule should be judged a finding, as it was: %s", old.Outcome)
	}
	got := rejudge(t, e, true)
	if got.Outcome != verdict.Error || !strings.Contains(got.Reason, "explore/steps-acted") || !strings.Contains(got.Reason, "pod-deletion at") {
		t.Errorf("a schedule whose pod deletion failed: %s %v: %s", got.Outcome, got.Broken, got.Reason)
	}
	for _, rec := range got.Records {
		if rec.Stage != verdict.Assumption && rec.Outcome != verdict.NotEvaluated {
			t.Errorf("%s was judged %s after a failed injection", rec.ID, rec.Outcome)
		}
	}
}
