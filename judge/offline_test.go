package judge

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Evidence without what a judge needs leaves the property not evaluated,
// never broken (a finding) or held (a pass).
func TestMissingEvidenceIsNotEvaluated(t *testing.T) {
	empty := &evidence.Evidence{Format: evidence.Format, Spec: "s", End: time.Now()}
	for id, j := range Offline {
		if id == catalog.EvidenceComplete.ID {
			continue // nothing recorded is nothing incomplete
		}
		p, _ := catalog.Property(id)
		if got := oracle.Judge(empty.Start, p, j(empty)); got.Outcome != verdict.NotEvaluated {
			t.Errorf("%s on empty evidence: %s (%s), want not-evaluated", id, got.Outcome, got.Reason)
		}
	}
}

// Every entry of Offline is keyed by a catalog variable's id and names its
// judge, a function of this package or a call that makes one, never a
// function literal: a search for the catalog's name finds the entry, and
// the entry leads to the judge.
func TestOfflineEntriesNameTheirJudges(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "offline.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	ast.Inspect(file, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "Offline" {
			return true
		}
		for _, elt := range spec.Values[0].(*ast.CompositeLit).Elts {
			kv := elt.(*ast.KeyValueExpr)
			entries++
			key, ok := kv.Key.(*ast.SelectorExpr)
			if inner, isSel := key.X.(*ast.SelectorExpr); !ok || key.Sel.Name != "ID" || !isSel || inner.X.(*ast.Ident).Name != "catalog" {
				t.Errorf("an entry's key is not catalog.NAME.ID: %#v", kv.Key)
				continue
			}
			if _, lit := kv.Value.(*ast.FuncLit); lit {
				t.Errorf("the judge of catalog.%s is a function literal: name it, so that a search leads from the entry to it", key.X.(*ast.SelectorExpr).Sel.Name)
			}
		}
		return false
	})
	if entries != len(Offline) {
		t.Errorf("offline.go's Offline has %d entries, the map %d", entries, len(Offline))
	}
}

// Every property of the catalog has an offline judge: a verdict anyone
// can check again from the evidence.
func TestEveryPropertyIsJudgedOffline(t *testing.T) {
	for _, p := range catalog.Properties {
		if _, ok := Offline[p.ID]; !ok {
			t.Errorf("property %s has no offline judge", p.ID)
		}
	}
	for id := range Offline {
		if _, err := catalog.Property(id); err != nil {
			t.Errorf("offline judge for %s: %v", id, err)
		}
	}
}

// A convergence whose recorded bound cannot be read, or names a state this
// judge does not know, is not evaluated, and the reason names the fact.
func TestUnreadableConvergenceBoundIsNotEvaluated(t *testing.T) {
	id := catalog.LostLateEvents.ID
	for name, value := range map[string]string{
		"bad duration": `{"Since":"2026-11-23T09:00:00Z","Within":"soon","Window":"1s","History":"workload","Want":{"kind":"gone","keys":["ns/web"]}}`,
		"no history":   `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","Want":{"kind":"gone","keys":["ns/web"]}}`,
		"unknown want": `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","History":"workload","Want":{"kind":"happy","keys":["ns/web"]}}`,
		"no key":       `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","History":"workload","Want":{"kind":"gone"}}`,
	} {
		e := &evidence.Evidence{Format: evidence.Format, Spec: "s", End: time.Now(),
			Facts:     map[string]string{FactConvergence(id).Name: value},
			Histories: map[string][]oracle.EventRecord{HistoryWorkload: {}}}
		got := oracle.Judge(e.Start, catalog.LostLateEvents, Offline[id](e))
		if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `fact "converge/`+id+`"`) {
			t.Errorf("%s: got %s: %s", name, got.Outcome, got.Reason)
		}
	}
}

// piece is one piece of evidence a judge may need: a fact, a history or a
// log by name, or the replicas' proxy logs (all of them).
type piece struct{ kind, name string }

func (p piece) String() string {
	if p.kind == "proxies" {
		return "proxy log"
	}
	return fmt.Sprintf("%s %q", p.kind, p.name)
}

// without is a copy of e without p.
func without(e *evidence.Evidence, p piece) *evidence.Evidence {
	c := *e
	switch p.kind {
	case "fact":
		c.Facts = maps.Clone(e.Facts)
		delete(c.Facts, p.name)
	case "history":
		c.Histories = maps.Clone(e.Histories)
		delete(c.Histories, p.name)
	case "log":
		c.Logs = maps.Clone(e.Logs)
		delete(c.Logs, p.name)
	case "proxies":
		c.Proxies = nil
	}
	return &c
}

// pieces are every piece of e.
func pieces(e *evidence.Evidence) []piece {
	out := []piece{{kind: "proxies"}}
	for _, n := range slices.Sorted(maps.Keys(e.Facts)) {
		out = append(out, piece{"fact", n})
	}
	for _, n := range slices.Sorted(maps.Keys(e.Histories)) {
		out = append(out, piece{"history", n})
	}
	for _, n := range slices.Sorted(maps.Keys(e.Logs)) {
		out = append(out, piece{"log", n})
	}
	return out
}

func readEvidence(t *testing.T, file string) *evidence.Evidence {
	t.Helper()
	e, err := evidence.Read(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Each judge of this file, on recorded evidence it judges, without each
// piece it needs, one at a time: not evaluated, naming the piece; never
// held (a pass) or broken (a finding) on evidence that is not there.
func TestEachMissingPieceIsNotEvaluated(t *testing.T) {
	fact := func(n string) piece { return piece{"fact", n} }
	history := func(n string) piece { return piece{"history", n} }
	proxies := piece{kind: "proxies"}
	for _, tc := range []struct {
		file  string
		p     verdict.Property
		needs []piece
	}{
		{"lostevents-no-expectations-relist.json", catalog.LostEventWithheld, []piece{fact(FactReplica.Name), fact(FactLostPod.Name), proxies}},
		{"lostevents-correct-stall.json", catalog.LostNoOvershoot, []piece{fact(FactWorkload.Name), fact(FactReplicasPath.Name), history(HistoryWorkload), history(HistoryPods)}},
		{"leader-correct-follower-shutdown.json", catalog.LeaderOneWriter, []piece{fact(FactLease.Name), history(HistoryLease), proxies}},
		{"leader-start-on-shutdown-follower-shutdown.json", catalog.LeaderOneWriter, []piece{fact(FactLease.Name), history(HistoryLease), proxies}},
		{"foreground-correct-blocked.json", catalog.FgDeletingStatus, []piece{fact(FactClaim.Name), fact(FactDeleted.Name), fact(FactWindow.Name), history(HistoryClaims)}},
		{"foreground-correct-blocked.json", catalog.FgDeletionBlocked, []piece{fact(FactExternalName.Name), {"log", LogExternal}}},
		{"upstream-crossplane-v1.15.3-blocked.json", catalog.FgDeletionBlocked, []piece{fact(FactBlocked.Name), history(HistoryBlocked)}},
		{"foreground-correct-samename.json", catalog.FgNoDeleteInUse, []piece{fact(FactExternalName.Name), fact(FactOldOwner.Name), fact(FactNewOwner.Name), {"log", LogExternal}}},
		{"finalizer-cleanup-while-paused-move.json", catalog.FinP2, []piece{fact(FactClusters.Name), fact(FactFinalizer.Name), history("source/clusters"), history("target/clusters")}},
		{"finalizer-cleanup-while-paused-move.json", catalog.FinP3, []piece{fact(FactResource.Name), proxies}},
		{"finalizer-finalizer-while-deleting-foreign.json", catalog.FinP3, []piece{fact(FactResource.Name), proxies}},
		{"finalizer-cleanup-while-paused-move.json", catalog.FinP4, []piece{fact(FactClusters.Name), fact(FactCleanupUIDLabel.Name), history("source/clusters"), history("source/cleanups"), history("target/clusters"), history("target/cleanups")}},
	} {
		e := readEvidence(t, tc.file)
		j := Offline[tc.p.ID]
		if got := oracle.Judge(e.Start, tc.p, j(e)); got.Outcome != verdict.Held && got.Outcome != verdict.Broken {
			t.Fatalf("%s on %s as recorded: %s (%s), want it judged", tc.p.ID, tc.file, got.Outcome, got.Reason)
		}
		for _, need := range tc.needs {
			got := oracle.Judge(e.Start, tc.p, j(without(e, need)))
			if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, need.String()) {
				t.Errorf("%s on %s without %s: %s (%s), want not-evaluated naming it", tc.p.ID, tc.file, need, got.Outcome, got.Reason)
			}
		}
	}
}

// Every judge, on every recorded evidence file, without any one piece:
// the verdict as recorded (the judge does not read it), or not evaluated
// naming the piece. Removing evidence never turns a verdict into another.
func TestRemovingAPieceNeverChangesAVerdict(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		e := readEvidence(t, filepath.Base(f))
		for _, rec := range e.Records {
			j, ok := Offline[rec.ID]
			if !ok || rec.ID == catalog.EvidenceComplete.ID {
				continue
			}
			want := oracle.Judge(e.Start, rec.Property, j(e))
			if want.Outcome != verdict.Held && want.Outcome != verdict.Broken {
				continue
			}
			for _, p := range pieces(e) {
				got := oracle.Judge(e.Start, rec.Property, j(without(e, p)))
				if got.Outcome == want.Outcome {
					continue
				}
				if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, p.String()) {
					t.Errorf("%s on %s without %s: %s (%s), was %s", rec.ID, f, p, got.Outcome, got.Reason, want.Outcome)
				}
			}
		}
	}
}

// A replicas path that never resolves in the workload's history gives
// no limit: no-overshoot is not evaluated, naming the fact, not held.
func TestNoOvershootWithoutALimitIsNotEvaluated(t *testing.T) {
	e := readEvidence(t, "lostevents-correct-stall.json")
	e.Facts = maps.Clone(e.Facts)
	e.Facts[FactReplicasPath.Name] = "spec.replicaz"
	got := oracle.Judge(e.Start, catalog.LostNoOvershoot, Offline[catalog.LostNoOvershoot.ID](e))
	if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `fact "replicasPath" is "spec.replicaz"`) {
		t.Errorf("got %s: %s", got.Outcome, got.Reason)
	}
}

// The bounds of the excusal and of the deleting-status start reach the
// record's figures through BoundText.
func TestBoundNamesTheCaps(t *testing.T) {
	e := readEvidence(t, "foreground-correct-blocked.json")
	if got := BoundText(catalog.FgDeletingStatus.ID, e); !strings.Contains(got, "T=5s W=") || !strings.Contains(got, "at most 1m0s after") {
		t.Errorf("deleting-status bound %q", got)
	}
	e = readEvidence(t, "lostevents-correct-stall.json")
	e.Facts = maps.Clone(e.Facts)
	delete(e.Facts, FactExpectationTimeout.Name)
	if got := BoundText(catalog.LostNoOvershoot.ID, e); got != "" {
		t.Errorf("no-overshoot without an expectation timeout: bound %q, want none", got)
	}
	e.Facts[FactExpectationTimeout.Name] = "5m0s"
	if got := BoundText(catalog.LostNoOvershoot.ID, e); !strings.Contains(got, "past the 5m0s expectation timeout, until 5m0s after it was seen") {
		t.Errorf("no-overshoot bound %q", got)
	}
}
