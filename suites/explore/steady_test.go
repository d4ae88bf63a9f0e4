package explore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// A reconciledObjects schedule's owned role is the resource of what the
// applied objects own directly in the reference run: a Deployment's
// ReplicaSets, not the pods those own in turn; nothing owned, none.
func TestOwnedResource(t *testing.T) {
	owner := func(uid string) map[string]any {
		return map[string]any{"uid": uid, "ownerReferences": []any{map[string]any{"uid": uid + "-owner"}}}
	}
	deployment := &judge.EndState{
		Roots: []string{"steady/deployments.apps:ns/web"},
		Objects: map[string]map[string]any{
			"steady/deployments.apps:ns/web":    {"metadata": map[string]any{"uid": "d"}},
			"steady/replicasets.apps:ns/web-1":  {"metadata": map[string]any{"uid": "rs1", "ownerReferences": []any{map[string]any{"uid": "d"}}}},
			"steady/replicasets.apps:ns/web-2":  {"metadata": map[string]any{"uid": "rs2", "ownerReferences": []any{map[string]any{"uid": "d"}}}},
			"steady/pods:ns/web-1-a":            {"metadata": map[string]any{"uid": "p1", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/pods:ns/web-1-b":            {"metadata": map[string]any{"uid": "p2", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/pods:ns/web-1-c":            {"metadata": map[string]any{"uid": "p3", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/configmaps:ns/not-owned-by": {"metadata": owner("c")},
		},
	}
	if got := ownedResource(deployment); got != "replicasets" {
		t.Errorf("a Deployment's owned resource is %q, want replicasets", got)
	}
	alone := &judge.EndState{Roots: []string{"steady/services:ns/web"}, Objects: map[string]map[string]any{"steady/services:ns/web": {"metadata": map[string]any{"uid": "s"}}}}
	if got := ownedResource(alone); got != "" {
		t.Errorf("objects that own nothing own %q, want none", got)
	}
	if got := keyResource("steady/pods:ns/web-1-a"); got != "pods" {
		t.Errorf("keyResource of a core pod: %q", got)
	}
}

// stuckRollout is a reconciledObjects schedule's evidence, recorded by
// `steadystate explore --subject fixtures/zoo/deployment.yaml --replay
// testdata/stuck-rollout.yaml`: Kubernetes' Deployment controller (v1.36.3),
// the scale-down of its old ReplicaSet answered 500 for a second half way
// through the template change's rollout, never tried again, and the rollout
// stayed at one of two updated pods for T and more.
const stuckRollout = "../../judge/testdata/explore-deployment-steady-stuck-rollout.json"

// A reconciledObjects schedule is judged offline from its own evidence: the
// reference runs' end states travel in it, every property it is declared
// judged on gets the verdict the run gave it (recovers and same-end-state
// broken by the stuck rollout, the others held), and without the
// references the comparisons are not evaluated: the schedule is an
// error, never a pass. The run predates quiescent's judgement; its state
// never settled again, so no quiet window was owed or recorded (a run
// now records quiescent not bound), and re-judged it is not evaluated,
// never a pass nor a finding.
func TestSteadyScheduleRejudgesOffline(t *testing.T) {
	e, recorded := keptFinding(t, "stuck-rollout.yaml", stuckRollout)
	want := map[string]verdict.Outcome{
		catalog.SteadyRecovers.ID: verdict.Broken, catalog.SteadySameEndState.ID: verdict.Broken,
		catalog.SteadyNoChurn.ID: verdict.Held, catalog.SteadyNoFinalizer.ID: verdict.Held, catalog.SteadyLeavesNothing.ID: verdict.Held,
		catalog.SteadyQuiescent.ID: verdict.NotEvaluated,
	}
	if _, ok := recorded[catalog.SteadyQuiescent.ID]; ok {
		t.Fatal("the stuck rollout's run recorded quiescent: this test's premise changed")
	}
	recorded[catalog.SteadyQuiescent.ID] = verdict.NotEvaluated // not recorded: see above
	for _, p := range judged[schedule.Steady] {
		if _, ok := want[p.ID]; !ok {
			recordedAfter(t, e, p)
			continue
		}
		got := oracle.Judge(e.Start, p, judge.Offline[p.ID](e))
		if got.Outcome != want[p.ID] || got.Outcome != recorded[p.ID] {
			t.Errorf("%s re-judged %s (%s), the run recorded %s, want %s", p.ID, got.Outcome, got.Reason, recorded[p.ID], want[p.ID])
		}
	}
	delete(e.Facts, judge.FactSteadyReferences.Name)
	for _, p := range []verdict.Property{catalog.SteadySameEndState, catalog.SteadyNoChurn} {
		if got := oracle.Judge(e.Start, p, judge.Offline[p.ID](e)); got.Outcome != verdict.NotEvaluated {
			t.Errorf("%s without the reference runs: %s (%s), want not evaluated", p.ID, got.Outcome, got.Reason)
		}
	}
}

// One reconciledObjects schedule of the reference composite (six faults and
// two change steps), the first of `steadystate explore --subject composite
// --capability reconciledObjects --seed 1`, recorded twice: with --bug
// status-hot-loop, whose controller stamped the Claim's status and wrote
// it every second once settled again after the faults, and without the
// bug (STEADYSTATE_KEEP_EVIDENCE=1), which went quiet.
const (
	compositeHotLoop = "../../judge/testdata/explore-composite-steady-status-hot-loop.json"
	compositeQuiet   = "../../judge/testdata/explore-composite-steady-correct.json"
)

// A reconciledObjects schedule that settled again after its faults is judged
// on quiescent over the quiet window its evidence records, offline as
// the run judged it: broken by the status hot loop's writes, held by the
// correct controller. Without the window (a state that did not settle
// records none) it is not evaluated, never a pass nor a finding.
func TestSteadyScheduleJudgesQuiescentOffline(t *testing.T) {
	for file, want := range map[string]verdict.Outcome{compositeHotLoop: verdict.Broken, compositeQuiet: verdict.Held} {
		e, err := evidence.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		var recorded verdict.Outcome
		for _, r := range e.Records {
			if r.ID == catalog.SteadyQuiescent.ID {
				recorded = r.Outcome
			}
		}
		got := oracle.Judge(e.Start, catalog.SteadyQuiescent, judge.Offline[catalog.SteadyQuiescent.ID](e))
		if got.Outcome != want || recorded != want {
			t.Errorf("%s: quiescent re-judged %s (%s), the run recorded %q, want %s", filepath.Base(file), got.Outcome, got.Reason, recorded, want)
		}
		if want == verdict.Broken && !strings.Contains(got.Reason, "claims/status") {
			t.Errorf("%s: quiescent broken without naming the Claim's status writes: %s", filepath.Base(file), got.Reason)
		}
		delete(e.Facts, judge.FactSteadyQuiet.Name)
		if got := oracle.Judge(e.Start, catalog.SteadyQuiescent, judge.Offline[catalog.SteadyQuiescent.ID](e)); got.Outcome != verdict.NotEvaluated {
			t.Errorf("%s without its quiet window: quiescent %s (%s), want not evaluated", filepath.Base(file), got.Outcome, got.Reason)
		}
	}
}

// exitedHost is a replica's process that a process fault stopped.
type exitedHost struct{ chaos.Host }

func (exitedHost) Exited(context.Context) bool { return true }

// A forced relist, or the relist that ends dropped events, waits for each
// replica whose watch it cut to re-watch; a replica that a process fault
// stopped meanwhile re-watches nothing until it starts again, and then
// lists afresh: the relist acts, naming it, rather than failing the
// schedule on explore/steps-acted (a reconciledObjects schedule of the zoo's
// Deployment controller did: event-drop with a process-kill of the same
// replica inside its window). One whose replica runs and never re-watches
// still fails.
func TestRelistOfAStoppedReplicaActs(t *testing.T) {
	for _, exited := range []bool{true, false} {
		r := chaos.Replica{Identity: "r0", Proxy: &fakeProxy{cuts: 1}}
		if exited {
			r.Host = exitedHost{}
		}
		d := &fakeDriver{t: chaos.Target{Replicas: []chaos.Replica{r}}}
		f, err := faultFor(t.Context(), d, schedule.Step{Fault: "forced-relist", Resource: "pods"})
		if err != nil {
			t.Fatal(err)
		}
		f.(*chaos.ForcedRelist).Timeout = 200 * time.Millisecond
		inj, err := chaos.Inject(t.Context(), chaos.NewTimeline(), f, d.target())
		switch {
		case exited && (err != nil || inj.Detail[chaos.DetailStopped] != "r0"):
			t.Errorf("a stopped replica's relist: %v, detail %v; want it acted, naming r0 stopped", err, inj.Detail)
		case !exited && err == nil:
			t.Errorf("a running replica that never re-watched: the relist acted")
		}
	}
}

// stoppingHost is a replica's process that a process fault stops once
// stop is closed.
type stoppingHost struct {
	chaos.Host
	stop chan struct{}
}

func (h stoppingHost) Exited(context.Context) bool {
	select {
	case <-h.stop:
		return true
	default:
		return false
	}
}

// A change step waits for the state to settle only while the controller
// runs: a replica a process fault stopped starts again only after the
// steps, so the wait ends then (a reconciledObjects schedule of the zoo's
// ReplicaSet controller waited T+W, 65 s, for a settle the kill made
// impossible).
func TestChangeWaitsOnlyWhileTheControllerRuns(t *testing.T) {
	h := stoppingHost{stop: make(chan struct{})}
	target := chaos.Target{Replicas: []chaos.Replica{{Identity: "r0", Host: h}}}
	running, stopped, cancel := whileRunning(t.Context(), target)
	defer cancel()
	if stopped() || running.Err() != nil {
		t.Fatal("a running controller's wait ended")
	}
	close(h.stop)
	<-running.Done()
	if !stopped() {
		t.Error("the wait ended without the controller stopped")
	}
	if _, stopped, cancel := whileRunning(t.Context(), target); !stopped() {
		t.Error("a controller stopped before the wait: the wait began")
	} else {
		cancel()
	}
}

// A reconciledObjects exploration draws pod deletions for a subject whose
// objects own pods (a Job's, a ReplicaSet's, transitively a
// Deployment's), never for one whose objects own none; after a pod
// deletion the recovery allows the replacement, as the lost-events
// suite's bound does.
func TestSteadyDrawsPodDeletionsWhereTheObjectsOwnPods(t *testing.T) {
	drawn := func(pods bool) int {
		n := 0
		for seed := range uint64(300) {
			for _, st := range schedule.Generate(seed, schedule.Steady, steadyLimits(1, true, true, pods)).Steps {
				if st.Fault == "pod-deletion" {
					n++
				}
			}
		}
		return n
	}
	if n := drawn(true); n == 0 {
		t.Error("300 schedules of a subject whose objects own pods drew no pod deletion")
	}
	if n := drawn(false); n != 0 {
		t.Errorf("300 schedules of a subject whose objects own no pod drew %d pod deletions", n)
	}
	job := &judge.EndState{
		Roots: []string{"steady/jobs.batch:ns/batch"},
		Objects: map[string]map[string]any{
			"steady/jobs.batch:ns/batch": {"metadata": map[string]any{"uid": "j"}},
			"steady/pods:ns/batch-a":     {"metadata": map[string]any{"uid": "p", "ownerReferences": []any{map[string]any{"uid": "j"}}}},
		},
	}
	service := &judge.EndState{Roots: []string{"steady/services:ns/web"}, Objects: map[string]map[string]any{"steady/services:ns/web": {"metadata": map[string]any{"uid": "s"}}}}
	if why := samePodsDeleted([]string{"batch-a"}); !strings.Contains(why, "batch-a") || !strings.Contains(why, "a Job counts it failed") {
		t.Errorf("same-end-state not bound after a pod deletion: %q names neither the pod nor why", why)
	}
	if !ownsPods(job) || ownsPods(service) {
		t.Errorf("a Job's end state owns pods: %v, a Service's: %v; want true, false", ownsPods(job), ownsPods(service))
	}
	for _, tc := range []struct {
		settle  time.Duration
		deleted bool
		want    time.Duration
	}{
		{10 * time.Second, false, 10 * time.Second},
		{10 * time.Second, true, subjectfile.DefaultReplaceWithin},
		{time.Minute, true, time.Minute},
	} {
		if got := recoverWithin(tc.settle, tc.deleted); got != tc.want {
			t.Errorf("settleWithin %s, a pod deleted %v: recovery within %s, want %s", tc.settle, tc.deleted, got, tc.want)
		}
	}
}

// certManagerReissue is a reconciledObjects schedule's evidence of cert-manager
// (testdata/cert-manager-reissue.yaml): its proxy records what the
// controller watched and wrote.
const certManagerReissue = "../../judge/testdata/certmanager/explore-cert-manager-steady-reissue.json"

// What a controller used is read from its proxies' records: the
// resources it watched and the writes it made, Lease and Event requests
// aside; beyond the roles, it is what the roles do not name already.
// cert-manager watched and wrote Secrets, which no role names (its
// Certificates own CertificateRequests): schedules drawn with what it used
// stall and cut the Secrets watch and wait for its Secret writes; a
// Deployment controller's roles name all but the pods it watched, and it
// made every role request but a delete of what it owns, for which no
// step waits.
func TestControllerUseBeyondTheRoles(t *testing.T) {
	e, err := evidence.Read(certManagerReissue)
	if err != nil {
		t.Fatal(err)
	}
	noise := evidence.ProxyLog{Requests: []proxy.Request{
		{RequestInfo: proxy.RequestInfo{Verb: "watch", Group: "coordination.k8s.io", Resource: "leases"}},
		{RequestInfo: proxy.RequestInfo{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Name: "cert-manager-controller"}},
		{RequestInfo: proxy.RequestInfo{Verb: "create", Group: "events.k8s.io", Resource: "events"}},
		{RequestInfo: proxy.RequestInfo{Verb: "get", Path: "/version"}},
	}}
	e.Proxies["noise"] = noise
	roles := func(objects, owned string) func(string) string {
		return func(role string) string {
			return map[string]string{"objects": objects, "owned": owned}[role]
		}
	}
	u := controllerUse(e.Proxies, time.Time{})
	if got, want := FactSteadyUsed.Text(u.fact()), `{"chains":["24 writes of certificaterequests, the last 10.217s after the application","36 writes of certificates, the last 10.226s after the application","6 writes of issuers, the last 4.31s after the application","18 writes of secrets, the last 10.209s after the application"],"requested":["create certificaterequests","delete certificaterequests","update certificaterequests","update certificates","update issuers","create secrets","delete secrets","patch secrets"],"watched":["certificaterequests","certificates","clusterissuers","issuers","secrets"]}`; got != want {
		t.Errorf("cert-manager used %s, want %s", got, want)
	}
	beyond := u.beyond(roles("certificates", "certificaterequests"))
	if got, want := FactSteadyUsed.Text(beyond.fact()), `{"chains":["24 writes of owned, the last 10.217s after the application","36 writes of objects, the last 10.226s after the application","6 writes of issuers, the last 4.31s after the application","18 writes of secrets, the last 10.209s after the application"],"requested":["update issuers","create secrets","delete secrets","patch secrets"],"watched":["clusterissuers","issuers","secrets"]}`; got != want {
		t.Errorf("cert-manager used %s beyond the roles, want %s", got, want)
	}
	l := steadyLimits(1, true, true, false)
	l.Watched, l.Requested = beyond.Watched, beyond.Requested
	secrets := 0
	for seed := range uint64(200) {
		s := schedule.Generate(seed, schedule.Steady, l)
		if p := s.Validate(); len(p) > 0 {
			t.Fatalf("seed %d drew an invalid schedule: %+v", seed, p)
		}
		for _, st := range s.Steps {
			if st.Resource == "secrets" && (st.Fault == "watch-stall" || st.Fault == "watch-cut") {
				secrets++
			}
		}
	}
	if secrets == 0 {
		t.Error("200 schedules drawn with what cert-manager used never stalled nor cut its Secrets watch")
	}

	rollout, err := evidence.Read(stuckRollout)
	if err != nil {
		t.Fatal(err)
	}
	deployments := controllerUse(rollout.Proxies, time.Time{}).beyond(roles("deployments", "replicasets"))
	if got, want := FactSteadyUsed.Text(deployments.fact()), `{"chains":["15 writes of objects, the last 5.076s after the application","4 writes of owned, the last 5.08s after the application"],"requested":[],"unmade":["delete owned"],"watched":["pods"]}`; got != want {
		t.Errorf("the Deployment controller used %s beyond the roles, want %s", got, want)
	}
	// It deleted no ReplicaSet (none past its history limit): no step
	// waits for one.
	l = steadyLimits(1, true, true, true)
	l.Watched, l.Requested, l.Unmade = deployments.Watched, deployments.Requested, deployments.Unmade
	for seed := range uint64(200) {
		for _, st := range schedule.Generate(seed, schedule.Steady, l).Steps {
			if st.After != nil && st.After.Verb == "delete" && st.After.Resource == "owned" {
				t.Fatalf("seed %d: a step waits for a delete of owned, which the Deployment controller did not make", seed)
			}
		}
	}
	if !(steadyUse{}).beyond(roles("deployments", "replicasets")).empty() {
		t.Error("with no run's use to go by, role requests are taken as unmade")
	}
}

// metallbNoopStatus is a reconciledObjects schedule's evidence, recorded by
// `steadystate explore --subject fixtures/zoo/operators/metallb.yaml
// --replay testdata/metallb-noop-status.yaml`: MetalLB v0.15.2's
// controller, its status write refused 26 times in a row (13 syncs, two
// writes each); at +42.3 s, 6 s into the quiet window with the state long
// settled, the re-add its 13th failure had left in the work queue
// (5 ms·2^12 = 20.48 s after it) wrote the Service's status to no effect
// (no event follows it).
const metallbNoopStatus = "../../judge/testdata/metallb/explore-metallb-steady-noop-status.json"

// The MetalLB finding's evidence re-judges offline as it ran, every
// property held, but quiescent: the run broke it on the one status write
// in the quiet window, which the judge now leaves aside as the faults'
// re-add (judge.ReAddOf), saying so in its bound. The same write 2 s
// earlier, when no re-add was due, breaks it: the verdict is the
// write's timing, not the window's or the faults'.
func TestMetalLBNoopStatusRejudgesOffline(t *testing.T) {
	e, recorded := keptFinding(t, "metallb-noop-status.yaml", metallbNoopStatus)
	for _, p := range judged[schedule.Steady] {
		if _, ok := recorded[p.ID]; !ok {
			recordedAfter(t, e, p)
			continue
		}
		want, ran := verdict.Held, verdict.Held
		if p.ID == catalog.SteadyQuiescent.ID {
			ran = verdict.Broken
		}
		got := oracle.Judge(e.Start, p, judge.Offline[p.ID](e))
		if got.Outcome != want || recorded[p.ID] != ran {
			t.Errorf("%s re-judged %s (%s), the run recorded %s, want %s and %s", p.ID, got.Outcome, got.Reason, recorded[p.ID], want, ran)
		}
	}
	if b := judge.BoundText(catalog.SteadyQuiescent.ID, e); !strings.Contains(b, "left aside, update services/") || !strings.Contains(b, "failure 13 of its 26 refused writes") {
		t.Errorf("quiescent's bound does not say the status write was left aside: %s", b)
	}
	var q judge.QuietWindow
	if err := json.Unmarshal([]byte(e.Facts[judge.FactSteadyQuiet.Name]), &q); err != nil {
		t.Fatalf("the recorded quiet window: %v", err)
	}
	found := false
	for id, l := range e.Proxies {
		for i, req := range l.Requests {
			if req.Verb == "update" && req.Resource == "services" && !req.Start.Before(q.From) && !req.Start.After(q.To) {
				l.Requests[i].Start, l.Requests[i].End = req.Start.Add(-2*time.Second), req.End.Add(-2*time.Second)
				found = true
			}
		}
		e.Proxies[id] = l
	}
	if !found {
		t.Fatal("no status write in the recorded quiet window: this test's premise changed")
	}
	if got := oracle.Judge(e.Start, catalog.SteadyQuiescent, judge.Offline[catalog.SteadyQuiescent.ID](e)); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "update services/status") {
		t.Errorf("quiescent with the write 2 s before the re-add was due: %s (%s), want broken on the Service's status write", got.Outcome, got.Reason)
	}
}

// keptFinding loads a kept finding's schedule (testdata/name) and the
// recorded evidence of one of its replays, and returns the evidence and
// the outcome the run recorded for each property.
func keptFinding(t *testing.T, name, recordedEvidence string) (*evidence.Evidence, map[string]verdict.Outcome) {
	t.Helper()
	if _, err := schedule.Load(filepath.Join("testdata", name)); err != nil {
		t.Fatalf("the finding's schedule: %v", err)
	}
	e, err := evidence.Read(recordedEvidence)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]verdict.Outcome{}
	for _, r := range e.Records {
		recorded[r.ID] = r.Outcome
	}
	return e, recorded
}

// recordedAfter checks a property added since a kept run was recorded
// (no-panic: the run kept no output of its replicas): re-judged on the
// old evidence it is not evaluated, never a pass nor a finding.
func recordedAfter(t *testing.T, e *evidence.Evidence, p verdict.Property) {
	t.Helper()
	if got := oracle.Judge(e.Start, p, judge.Offline[p.ID](e)); got.Outcome != verdict.NotEvaluated {
		t.Errorf("%s, added since the run, re-judged %s (%s) on its evidence, want not evaluated", p.ID, got.Outcome, got.Reason)
	}
}
