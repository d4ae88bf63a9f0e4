package judge

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestSavedEvidenceReJudges re-judges the evidence of real self-test and
// upstream runs kept under testdata (copied from _artifacts/selftest and
// _artifacts/upstream with STEADYSTATE_KEEP_EVIDENCE=1): every property
// must get the verdict the run gave it, and every property must be seen
// both held and broken. Properties no seeded bug breaks (premises, complete
// evidence, most convergences) get their violating case derived from a
// recorded file, each by one stated change.
func TestSavedEvidenceReJudges(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no saved evidence: %v", err)
	}
	seen := map[string][]verdict.Outcome{}
	judgeAll := func(name string, e *evidence.Evidence) {
		for _, rec := range e.Records {
			j, ok := Offline[rec.ID]
			// Not evaluated, or not bound (the binding or the run's
			// premise gave no means to judge it): no verdict of a
			// judge, kept as run, as validate keeps it.
			if !ok || rec.Outcome == verdict.NotEvaluated || rec.Outcome == verdict.NotBound {
				continue
			}
			got := oracle.Judge(e.Start, rec.Property, j(e))
			if got.Outcome != rec.Outcome {
				t.Errorf("%s: %s re-judged %s, the run recorded %s: %s", name, rec.ID, got.Outcome, rec.Outcome, got.Reason)
			}
			seen[rec.ID] = append(seen[rec.ID], got.Outcome)
		}
	}
	for _, f := range files {
		e, err := evidence.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		judgeAll(filepath.Base(f), e)
	}

	derive := func(file string, change func(e *evidence.Evidence), id string) {
		e, err := evidence.Read(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		change(e)
		got := oracle.Judge(e.Start, catalog.EvidenceComplete, Offline[id](e))
		if got.Outcome != verdict.Broken {
			t.Errorf("derived violation of %s from %s judged %s", id, file, got.Outcome)
		}
		seen[id] = append(seen[id], got.Outcome)
	}
	// A recorder whose watch could not resume.
	derive("lostevents-correct-late-events.json", func(e *evidence.Evidence) {
		e.Incomplete = map[string]string{HistoryPods: "the recorder's pods watch ended and could not resume without a relist: 410 Gone"}
	}, catalog.EvidenceComplete.ID)
	// A replica whose watch came back in an encoding the proxy refused.
	derive("lostevents-correct-late-events.json", func(e *evidence.Evidence) {
		for id, p := range e.Proxies {
			p.Requests = append(p.Requests, proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "pods"}, Code: 406, Fault: proxy.RefusedEncoding})
			e.Proxies[id] = p
		}
	}, catalog.EvidenceComplete.ID)
	// A mirrored proxy that stopped answering before its log was final.
	derive("leader-correct-follower-shutdown.json", func(e *evidence.Evidence) {
		for id, p := range e.Proxies {
			p.Incomplete = "its proxy log was last copied at 03:23:05.900, then the proxy stopped answering before the log was final"
			e.Proxies[id] = p
		}
	}, catalog.EvidenceComplete.ID)
	// The pod the subject did see: its ADDED event was delivered.
	derive("lostevents-expectations-never-expire-relist.json", func(e *evidence.Evidence) {
		for _, ev := range e.Proxies[e.Facts[FactReplica.Name]].Events {
			if ev.Kind == "Pod" && ev.Type == "ADDED" && ev.Delivered {
				e.Facts[FactLostPod.Name] = ev.Name
				return
			}
		}
		t.Fatal("no delivered pod event to derive from")
	}, catalog.LostEventWithheld.ID)
	// The external system's log without the refused deletes.
	derive("foreground-no-blocking-reason-blocked.json", func(e *evidence.Evidence) {
		var ops []Op
		if err := e.Log(LogExternal, &ops); err != nil {
			t.Fatal(err)
		}
		ops = slices.DeleteFunc(ops, func(o Op) bool { return o.Result == "failed" })
		raw, _ := json.Marshal(ops)
		e.Logs[LogExternal] = raw
	}, catalog.FgDeletionBlocked.ID)
	// A bound the recorded convergence did not meet: T of 1ms. A few
	// converged at once in the run (the mover returns once the objects
	// run, or are gone); theirs is judged from a moment they had not: the
	// spec's start, or the end of the first move.
	moved := func(e *evidence.Evidence) time.Time {
		at, err := FactMoved.Get(e)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	start := func(e *evidence.Evidence) time.Time { return e.Start }
	for _, c := range []struct {
		id, file string
		since    func(e *evidence.Evidence) time.Time
	}{
		{catalog.LostHealthyBefore.ID, "lostevents-correct-stall.json", nil},
		{catalog.LostLateEvents.ID, "lostevents-correct-late-events.json", nil},
		{catalog.LostAfterStall.ID, "lostevents-correct-stall.json", nil},
		{catalog.LostAfterStorm.ID, "lostevents-correct-storm.json", nil},
		{catalog.LeaderFailover.ID, "leader-correct-failover.json", nil},
		{catalog.FgReadyBefore.ID, "foreground-correct-samename.json", nil},
		{catalog.FgDeletionCompletes.ID, "foreground-no-blocking-reason-blocked.json", nil},
		{catalog.FinRanBefore.ID, "finalizer-cleanup-while-paused-move.json", nil},
		{catalog.FinRunsAfterMove.ID, "finalizer-cleanup-while-paused-move.json", start},
		{catalog.FinP1Back.ID, "finalizer-cleanup-while-paused-move.json", moved},
		{catalog.FinRunsAfterBack.ID, "finalizer-cleanup-while-paused-move.json", moved},
		{catalog.FinReleased.ID, "finalizer-finalizer-while-deleting-foreign.json", nil},
		{catalog.CPReplicaSetScalesDown.ID, "controlplane-replicaset.json", nil},
		{catalog.CPGCRemovesOwner.ID, "controlplane-garbage-collector.json", nil},
	} {
		derive(c.file, func(e *evidence.Evidence) { e.Facts[FactConvergence(c.id).Name] = unmetBound(t, e, c.id, c.since) }, c.id)
	}
	// Faults that failed, or acted on nothing.
	failed := func(fault, why string) func(e *evidence.Evidence) {
		return func(e *evidence.Evidence) {
			for i := range e.Faults {
				if e.Faults[i].Fault == fault {
					e.Faults[i].Error = why
				}
			}
		}
	}
	derive("leader-correct-follower-shutdown.json", failed("process-terminate", "terminate leader-1: the process had already exited"), catalog.LeaderFollowerTerminated.ID)
	// The tokens controller's two token fills refused as real conflicts
	// (suites/explore/testdata/serviceaccount-token-conflict.yaml), one of
	// them with no write behind its 409.
	derive("explore-serviceaccount-token-conflict.json", func(e *evidence.Evidence) {
		for replica, p := range e.Proxies {
			for i, req := range p.Requests {
				if req.Conflict != nil && req.Name == "builder-token" {
					p.Requests[i].Conflict = &proxy.ConflictWrite{NotWritten: `secrets "builder-token" not found`}
					e.Proxies[replica] = p
					return
				}
			}
		}
		t.Fatal("no refused write of builder-token with its conflict written to derive from")
	}, catalog.ExploreStepsActed.ID)
	// The kill itself failed (a Lease nobody takes after it is no failure
	// of the injection: TestLeaderThatNeverFailsOverIsBroken).
	derive("leader-correct-failover.json", failed("leader-failover", "kill leader-0: no such process"), catalog.LeaderHolderKilled.ID)
	derive("lostevents-correct-storm.json", func(e *evidence.Evidence) {
		for i := range e.Faults {
			e.Faults[i].Detail["deleted"] = ""
		}
	}, catalog.LostStormHappened.ID)
	// The late-events delay and the watch stall that matched nothing: the
	// proxy log without the events their rules delayed or held.
	unmatched := func(fault string) func(e *evidence.Evidence) {
		return func(e *evidence.Evidence) {
			for _, inj := range e.Faults {
				if inj.Fault != fault {
					continue
				}
				for replica, id := range chaos.Rules(inj) {
					p := e.Proxies[replica]
					n := len(p.Events)
					p.Events = slices.DeleteFunc(p.Events, func(ev proxy.Event) bool { return ev.Fault == id })
					if len(p.Events) == n {
						t.Fatalf("%s: the proxy log of %s has no event of %s", fault, replica, id)
					}
					e.Proxies[replica] = p
				}
			}
		}
	}
	derive("lostevents-correct-late-events.json", unmatched("event-delay"), catalog.LostEventsDelayed.ID)
	derive("lostevents-correct-stall.json", unmatched("watch-stall"), catalog.LostWatchStalled.ID)
	// The steady-state faults that did not act: a stall that held
	// nothing, a drop that dropped nothing, a 500 that answered no write.
	derive("steadystate-correct-stale-view.json", unmatched("watch-stall"), catalog.SteadyStaleView.ID)
	derive("steadystate-correct-missed-events.json", unmatched("event-drop"), catalog.SteadyMissedEvents.ID)
	derive("steadystate-correct-writes-refused.json", func(e *evidence.Evidence) {
		for _, inj := range e.Faults {
			if inj.Fault != RespondFault(500) {
				continue
			}
			for replica, id := range chaos.Rules(inj) {
				p := e.Proxies[replica]
				n := len(p.Requests)
				p.Requests = slices.DeleteFunc(p.Requests, func(r proxy.Request) bool { return r.Fault == id })
				if len(p.Requests) == n {
					t.Fatalf("the proxy log of %s has no request answered by %s", replica, id)
				}
				e.Proxies[replica] = p
			}
		}
	}, catalog.SteadyWritesRefused.ID)
	// The partition healed a millisecond after it began: nobody had taken
	// the Lease yet.
	derive("leader-correct-partition.json", func(e *evidence.Evidence) {
		for i := range e.Faults {
			e.Faults[i].End = e.Faults[i].Start.Add(time.Millisecond)
		}
	}, catalog.LeaderPartitioned.ID)
	// The API server let two of the racing creates win.
	derive("foreground-correct-samename.json", func(e *evidence.Evidence) {
		e.Faults[0].Detail["created"] = "2"
	}, catalog.FgOneCreateWins.ID)
	// The successor created only once its predecessor was gone: the end.
	derive("foreground-correct-samename.json", func(e *evidence.Evidence) {
		e.Facts[FactSuccessorCreated.Name] = e.End.Format(time.RFC3339Nano)
	}, catalog.FgOldDeleting.ID)
	// The mover failed, not on the API server's finalizer refusal (that
	// one is P3's evidence: TestMoverRefusedIsP3Evidence).
	derive("finalizer-cleanup-while-paused-move.json", func(e *evidence.Evidence) {
		e.Facts[FactMoverError.Name] = "move: exit status 1: dial tcp 127.0.0.1:6443: connect: connection refused"
	}, catalog.FinMoverFinished.ID)
	// Crossplane's composed object held by the harness's finalizer: the
	// premise names an object the harness's finalizer was never seen on.
	derive("upstream-crossplane-v1.15.3-blocked.json", func(e *evidence.Evidence) {
		e.Facts[FactBlocked.Name] += ",/never-deleted"
	}, catalog.FgDeletionBlocked.ID)

	// An exploration schedule whose delayed events' rule could not be
	// removed.
	derive("explore-correct-steps-acted.json", failed("event-delay", "recover event-delay: remove rule 3 of workload-0: connection refused"), catalog.ExploreStepsActed.ID)
	// A ReplicaSet whose status counts a pod the pods history never had.
	derive("controlplane-replicaset.json", func(e *evidence.Evidence) {
		pods := e.Histories[HistoryPods]
		if len(pods) == 0 {
			t.Fatal("no pod to derive from")
		}
		first := pods[0].Key
		e.Histories[HistoryPods] = slices.DeleteFunc(pods, func(r oracle.EventRecord) bool { return r.Key == first })
	}, catalog.CPReplicaSetScalesUp.ID)
	// The garbage collector never marked the blocking dependent deleting.
	derive("controlplane-garbage-collector.json", func(e *evidence.Evidence) {
		held, n := e.Facts[FactGCHeld.Name], len(e.Histories[HistoryConfigMaps])
		e.Histories[HistoryConfigMaps] = slices.DeleteFunc(e.Histories[HistoryConfigMaps], func(r oracle.EventRecord) bool {
			return r.Key == held && r.Type == "MODIFIED"
		})
		if len(e.Histories[HistoryConfigMaps]) == n {
			t.Fatal("no deleting dependent to derive from")
		}
	}, catalog.CPGCHoldsOwner.ID)

	// The upgrade's restart moved to the moment the objects were applied:
	// before they had settled.
	derive("steadystate-stack-correct-restart-settled.json", func(e *evidence.Evidence) {
		var phases []SettlePhase
		if err := json.Unmarshal([]byte(e.Facts[FactSteadySettle.Name]), &phases); err != nil || len(phases) == 0 {
			t.Fatal("no settle phase to derive from")
		}
		for i := range e.Faults {
			e.Faults[i].Start = phases[0].Since.Add(10 * time.Millisecond)
		}
	}, catalog.SteadyRestartedSettled.ID)
	// The last restart after the first creates, 3 s later than it came:
	// not right after the first create it followed.
	derive("steadystate-stack-correct-restart-creates.json", func(e *evidence.Evidence) {
		last := len(e.Faults) - 1
		if last < 0 {
			t.Fatal("no restart to derive from")
		}
		e.Faults[last].Start = e.Faults[last].Start.Add(3 * time.Second)
		e.Faults[last].End = e.Faults[last].End.Add(3 * time.Second)
	}, catalog.SteadyRestartedCreates.ID)

	for id := range Offline {
		if !slices.Contains(seen[id], verdict.Held) || !slices.Contains(seen[id], verdict.Broken) {
			t.Errorf("property %s is not covered both held and broken by testdata (seen %v)", id, seen[id])
		}
	}
}

// TestLearnedIdentitiesPreventAFalseAlarm: a controller-runtime manager
// (v0.17.3, the fix) elects as hostname_UUID, not as its replica's name.
// Its recorded writes hold only because each replica's holder identity is
// learned from the answers to its Lease writes; without them, the same
// evidence would convict the correct manager.
func TestLearnedIdentitiesPreventAFalseAlarm(t *testing.T) {
	e, err := evidence.Read("testdata/upstream-controller-runtime-v0.17.3-follower-shutdown.json")
	if err != nil {
		t.Fatal(err)
	}
	judgeIt := func() error { return Offline[catalog.LeaderOneWriter.ID](e) }
	if err := judgeIt(); err != nil {
		t.Fatalf("the fixed manager's evidence: %v", err)
	}
	learned := 0
	for id, p := range e.Proxies {
		for i := range p.Requests {
			if p.Requests[i].Holder != "" {
				learned++
			}
			p.Requests[i].Holder = ""
		}
		e.Proxies[id] = p
	}
	if learned == 0 {
		t.Fatal("the evidence has no learned holder identity")
	}
	if err := judgeIt(); !errors.Is(err, ErrTwoWriters) {
		t.Errorf("without learned identities the holder's own write should look like a non-holder's, got %v", err)
	}
}

// TestLeaderThatNeverFailsOverIsBroken: a correct failover's recorded
// evidence, with the Lease's history cut at the kill: nobody ever takes
// the Lease. The injection is the kill alone, so the premise holds and
// failover-in-time is broken, naming its bound and what the Lease showed:
// a finding. The same evidence as the injection used to record it (failed
// when no replica took the Lease) was an error: the premise broke and the
// property was never judged.
func TestLeaderThatNeverFailsOverIsBroken(t *testing.T) {
	neverTaken := func(injectionError string) []verdict.Record {
		e, err := evidence.Read("testdata/leader-correct-failover.json")
		if err != nil {
			t.Fatal(err)
		}
		kill := &e.Faults[0]
		e.Histories[HistoryLease] = slices.DeleteFunc(e.Histories[HistoryLease], func(r oracle.EventRecord) bool { return r.At.After(kill.Start) })
		for _, k := range []string{"newHolder", "transitionsAfter"} {
			delete(kill.Detail, k)
		}
		kill.Detail["failover"] = "no new holder seen within 6.2s"
		kill.Error = injectionError
		return oracle.Validate(e.Start,
			oracle.Check{Property: catalog.LeaderHolderKilled, Run: func() error { return Offline[catalog.LeaderHolderKilled.ID](e) }},
			oracle.Check{Property: catalog.LeaderFailover, Run: func() error { return Offline[catalog.LeaderFailover.ID](e) }},
		)
	}
	outcomes := func(recs []verdict.Record) map[string]verdict.Record {
		out := map[string]verdict.Record{}
		for _, r := range recs {
			out[r.ID] = r
		}
		return out
	}

	got := outcomes(neverTaken(""))
	if r := got[catalog.LeaderHolderKilled.ID]; r.Outcome != verdict.Held {
		t.Errorf("the kill acted: %s %s %q, want held", r.ID, r.Outcome, r.Reason)
	}
	r := got[catalog.LeaderFailover.ID]
	if r.Outcome != verdict.Broken || !strings.Contains(r.Reason, "T=6.2s") || !strings.Contains(r.Reason, `held by "leader-0" with leaseTransitions 0`) {
		t.Errorf("nobody took the Lease: %s %s %q, want broken naming T=6.2s and the Lease still held by leader-0", r.ID, r.Outcome, r.Reason)
	}

	old := neverTaken("no replica took Lease leader-z5jt6/refctl-leader within 30s after leader-0 was stopped")
	if msg := verdict.Message(old); !strings.HasPrefix(msg, "error: assumption "+catalog.LeaderHolderKilled.ID) {
		t.Errorf("as the injection used to record it, the spec's message is %q, want an error", msg)
	}
	if r := outcomes(old)[catalog.LeaderFailover.ID]; r.Outcome != verdict.NotEvaluated {
		t.Errorf("as the injection used to record it: %s %s, want not evaluated", r.ID, r.Outcome)
	}
}

// TestExploredFailoverIsJudged: exploration judges a failover from when
// every fault was recovered, wanting the Lease renewed after the kill (a
// restarted holder may come back under its old name). On the recorded
// failover it holds; with the Lease's history cut at the kill it breaks:
// a failover that never came does not pass.
func TestExploredFailoverIsJudged(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  bool
		want verdict.Outcome
	}{{"taken over", false, verdict.Held}, {"never taken", true, verdict.Broken}} {
		e, err := evidence.Read("testdata/leader-correct-failover.json")
		if err != nil {
			t.Fatal(err)
		}
		kill := e.Faults[0].Start
		if tc.cut {
			e.Histories[HistoryLease] = slices.DeleteFunc(e.Histories[HistoryLease], func(r oracle.EventRecord) bool { return r.At.After(kill) })
		}
		recovered := kill.Add(10 * time.Millisecond)
		b := Bound{Convergence: oracle.Convergence{Since: recovered, Within: 6200 * time.Millisecond, Window: time.Second}, History: HistoryLease, Want: RenewedAfter(e.Facts[FactLease.Name], kill)}
		FactConvergence(catalog.LeaderFailover.ID).Put(e, b)
		got := oracle.Judge(e.Start, catalog.LeaderFailover, Offline[catalog.LeaderFailover.ID](e))
		if got.Outcome != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.name, got.Outcome, got.Reason, tc.want)
		}
	}
}

// TestDeclaredLeaseDurationIsChecked: the failover bound is made of the
// subject file's leaseDuration. When the recorded Lease says another,
// failover-in-time is not evaluated, naming both; without the declared
// duration it cannot be judged either.
func TestDeclaredLeaseDurationIsChecked(t *testing.T) {
	for _, tc := range []struct {
		name, declared string
		want           verdict.Outcome
		reason         []string
	}{
		{"agrees", "3s", verdict.Held, nil},
		{"a fraction of a second more", "3500ms", verdict.Held, nil},
		{"disagrees", "15s", verdict.NotEvaluated, []string{"leaseDuration is 15s", "spec.leaseDurationSeconds 3"}},
		{"not declared", "", verdict.NotEvaluated, []string{`fact "leaseDuration"`}},
	} {
		e, err := evidence.Read("testdata/leader-correct-failover.json")
		if err != nil {
			t.Fatal(err)
		}
		e.Facts[FactLeaseDuration.Name] = tc.declared
		if tc.declared == "" {
			delete(e.Facts, FactLeaseDuration.Name)
		}
		got := oracle.Judge(e.Start, catalog.LeaderFailover, Offline[catalog.LeaderFailover.ID](e))
		if got.Outcome != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.name, got.Outcome, got.Reason, tc.want)
		}
		for _, want := range tc.reason {
			if !strings.Contains(got.Reason, want) {
				t.Errorf("%s: reason %q does not name %q", tc.name, got.Reason, want)
			}
		}
	}
}

// TestLeaderOnlyNarrowsOneWriter: the subject's leaderOnly reaches the
// offline judge through the evidence. The fixed controller-runtime
// manager's recorded run, with its follower also writing its own pod's
// status (no leader-only work), is convicted by the default scope and
// holds with leaderOnly [configmaps]; the broken v0.17.2 manager's
// leader-only configmap write still breaks it under that scope.
func TestLeaderOnlyNarrowsOneWriter(t *testing.T) {
	judgeWith := func(file, leaderOnly string, change func(e *evidence.Evidence)) error {
		e, err := evidence.Read(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if leaderOnly != "" {
			e.Facts[FactLeaderOnly.Name] = leaderOnly
		}
		if change != nil {
			change(e)
		}
		return Offline[catalog.LeaderOneWriter.ID](e)
	}
	const fixed, broken = "upstream-controller-runtime-v0.17.3-follower-shutdown.json", "upstream-controller-runtime-v0.17.2-follower-shutdown.json"
	// The follower: the replica whose Lease writes were never answered
	// with a holder.
	podStatus := func(e *evidence.Evidence) {
		for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
			p := e.Proxies[id]
			if slices.ContainsFunc(p.Requests, func(r proxy.Request) bool { return r.Holder != "" }) {
				continue
			}
			at := e.Start.Add(time.Second)
			p.Requests = append(p.Requests, proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "patch", Resource: "pods", Subresource: "status", Namespace: "ns", Name: id}, Code: 200, Start: at, End: at})
			e.Proxies[id] = p
			return
		}
		t.Fatal("no follower in the evidence")
	}
	if err := judgeWith(fixed, "", nil); err != nil {
		t.Fatalf("the fixed manager as recorded: %v", err)
	}
	if err := judgeWith(fixed, "", podStatus); !errors.Is(err, ErrTwoWriters) || !strings.Contains(err.Error(), "pods/") {
		t.Errorf("the default scope should convict the follower's pod status write, got %v", err)
	}
	if err := judgeWith(fixed, "configmaps", podStatus); err != nil {
		t.Errorf("leaderOnly [configmaps]: the follower's pod status write is no leader-only work, got %v", err)
	}
	if err := judgeWith(broken, "configmaps", nil); !errors.Is(err, ErrTwoWriters) {
		t.Errorf("leaderOnly [configmaps]: v0.17.2's follower configmap write should still break it, got %v", err)
	}
	if err := judgeWith(broken, "widgets.example.com", nil); err != nil {
		t.Errorf("leaderOnly [widgets.example.com]: no write of that resource, got %v", err)
	}
}

// TestSchema422IsNotP3: the recorded run of a controller that re-adds its
// finalizer to an object being deleted breaks P3 on the API server's
// finalizer refusals. The same 422s as a schema's rejection are not P3
// (the old judge counted any 422); without their messages P3 cannot be
// told, and is not evaluated.
func TestSchema422IsNotP3(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		want          verdict.Outcome
	}{
		{"as recorded", "", verdict.Broken},
		{"a schema's rejection", `Cluster.reference.steadystate.dev "held" is invalid: spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string"`, verdict.Held},
		{"no message kept", "-", verdict.NotEvaluated},
	} {
		e, err := evidence.Read("testdata/finalizer-finalizer-while-deleting-foreign.json")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for id, p := range e.Proxies {
			for i := range p.Requests {
				if p.Requests[i].Code != 422 {
					continue
				}
				n++
				switch tc.message {
				case "":
				case "-":
					p.Requests[i].Message = ""
				default:
					p.Requests[i].Message = tc.message
				}
			}
			e.Proxies[id] = p
		}
		if n == 0 {
			t.Fatal("the recorded run has no 422")
		}
		if got := oracle.Judge(e.Start, catalog.FinP3, Offline[catalog.FinP3.ID](e)); got.Outcome != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.name, got.Outcome, got.Reason, tc.want)
		}
	}
}

// TestMoverRefusedIsP3Evidence: a recorded move whose mover, this time,
// exited on the API server's finalizer refusal. The premise holds (the
// mover ran), P3 breaks on the refusal, and what a finished move owes (P1,
// the objects running on the target) is not evaluated, naming the
// refusal; P2, which held, is not evaluated either (a half-done move
// leaving no zombie says nothing), while a zombie P2 saw would still break
// it. Before, the premise broke and the spec was an error hiding P1-P4.
func TestMoverRefusedIsP3Evidence(t *testing.T) {
	const refused = `move: exit status 1: Cluster.reference.steadystate.dev "alpha" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"cluster.reference.steadystate.dev"}`
	judgeAll := func(file string) map[string]verdict.Record {
		e, err := evidence.Read(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		e.Facts[FactMoverError.Name] = refused
		var checks []oracle.Check
		for _, id := range []string{catalog.FinMoverFinished.ID, catalog.FinP1.ID, catalog.FinRunsAfterMove.ID, catalog.FinP2.ID, catalog.FinP3.ID} {
			p, _ := catalog.Property(id)
			checks = append(checks, oracle.Check{Property: p, Run: func() error { return Offline[id](e) }})
		}
		out := map[string]verdict.Record{}
		for _, r := range oracle.Validate(e.Start, checks...) {
			out[r.ID] = r
		}
		return out
	}
	got := judgeAll("finalizer-cleanup-while-paused-move.json")
	for id, want := range map[string]verdict.Outcome{
		catalog.FinMoverFinished.ID: verdict.Held,
		catalog.FinP1.ID:            verdict.NotEvaluated,
		catalog.FinRunsAfterMove.ID: verdict.NotEvaluated,
		catalog.FinP2.ID:            verdict.NotEvaluated,
		catalog.FinP3.ID:            verdict.Broken,
	} {
		if r := got[id]; r.Outcome != want {
			t.Errorf("%s: %s %q, want %s", id, r.Outcome, r.Reason, want)
		}
	}
	if r := got[catalog.FinP1.ID]; !strings.Contains(r.Reason, "no new finalizers") {
		t.Errorf("P1's reason %q does not name the refusal", r.Reason)
	}
	// The strip-then-delete mover's run left a zombie: P2 still breaks.
	if r := judgeAll("finalizer-strip-then-delete-move.json")[catalog.FinP2.ID]; r.Outcome != verdict.Broken {
		t.Errorf("a zombie beside a refused mover: P2 %s %q, want broken", r.Outcome, r.Reason)
	}
}

// TestDeletionNeverPropagatedBreaksDeletionCompletes: Crossplane's
// recorded blocked deletion, as a subject that never propagates the
// claim's deletion would have left it: the composed object the harness
// held never marked for deletion, the claim never gone. The harness's block
// was in place, so the premise holds and deletion-completes is broken.
// Before, the premise broke (the deletion "never reached" the object) and
// the spec was an error.
func TestDeletionNeverPropagatedBreaksDeletionCompletes(t *testing.T) {
	e, err := evidence.Read("testdata/upstream-crossplane-v1.15.3-blocked.json")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range e.Histories[HistoryBlocked] {
		md, _ := r.Object["metadata"].(map[string]any)
		delete(md, "deletionTimestamp")
		e.Histories[HistoryBlocked][i] = r
	}
	e.Histories[HistoryClaims] = slices.DeleteFunc(e.Histories[HistoryClaims], func(r oracle.EventRecord) bool { return r.Type == "DELETED" })
	recs := oracle.Validate(e.Start,
		oracle.Check{Property: catalog.FgDeletionBlocked, Run: func() error { return Offline[catalog.FgDeletionBlocked.ID](e) }},
		oracle.Check{Property: catalog.FgDeletionCompletes, Run: func() error { return Offline[catalog.FgDeletionCompletes.ID](e) }},
	)
	want := map[string]verdict.Outcome{catalog.FgDeletionBlocked.ID: verdict.Held, catalog.FgDeletionCompletes.ID: verdict.Broken}
	for _, r := range recs {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s %q, want %s", r.ID, r.Outcome, r.Reason, want[r.ID])
		}
	}
}

// unmetBound is the recorded bound of property id with T of 1ms, from
// since when it is set.
func unmetBound(t *testing.T, e *evidence.Evidence, id string, since func(e *evidence.Evidence) time.Time) string {
	t.Helper()
	r := read(e)
	b := r.bound(id)
	if err := r.missing(); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	b.Within = time.Millisecond
	if since != nil {
		b.Since = since(e)
	}
	return FactConvergence(id).Text(b)
}
