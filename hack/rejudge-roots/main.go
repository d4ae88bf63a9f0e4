// Command rejudge-roots measures what comparing the applied objects'
// fields beside their status (end states of version 3) changes on runs
// already recorded: for every faulted steady-state spec below the folders
// given, it judges same-end-state and no-churn against the reference end
// states the run kept (as the run judged them) and against those
// recomputed from the reference specs' own evidence beside it (as this
// steadystate would judge them), and prints every verdict that differs,
// then a count.
//
//	go run ./hack/rejudge-roots _artifacts/zoo
package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/rejudge-roots DIR...  (folders holding steady-state runs' evidence.json files)")
		os.Exit(2)
	}
	judged, differ, skipped := 0, 0, 0
	for _, dir := range os.Args[1:] {
		paths, err := evidence.Find(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, p := range paths {
			n, d, err := rejudge(p)
			if err != nil {
				fmt.Printf("%s: not re-judged: %v\n", p, err)
				skipped++
				continue
			}
			judged += n
			differ += d
		}
	}
	fmt.Printf("%d verdicts judged again, %d differ, %d specs not re-judged\n", judged, differ, skipped)
}

// rejudge judges the faulted spec of path both ways; 0 when it kept no
// references (a clean spec).
func rejudge(path string) (judged, differ int, err error) {
	e, err := evidence.Read(path)
	if err != nil {
		return 0, 0, err
	}
	if !judge.FactSteadyReferences.Has(e) {
		return 0, 0, nil
	}
	kept, err := judge.FactSteadyReferences.Get(e)
	if err != nil {
		return 0, 0, err
	}
	var again []*judge.EndState
	for _, ref := range kept {
		re, err := evidence.Read(filepath.Join(filepath.Dir(filepath.Dir(path)), evidence.SpecFolder(ref.Spec), evidence.FileName))
		if err != nil {
			return 0, 0, fmt.Errorf("reference %q: %w", ref.Spec, err)
		}
		es, err := judge.EndStateOf(re)
		if err != nil {
			return 0, 0, fmt.Errorf("reference %q: %w", ref.Spec, err)
		}
		// What the suite saw while the run went (a phase that did not
		// settle) is the run's, not the evidence's to recompute.
		es.Spec = ref.Spec
		if ref.NotReady != "" {
			es.NotReady = ref.NotReady
		}
		again = append(again, es)
	}
	for _, p := range []verdict.Property{catalog.SteadySameEndState, catalog.SteadyNoChurn} {
		before := oracle.Judge(e.Start, p, judge.Offline[p.ID](e))
		e2 := *e
		e2.Facts = maps.Clone(e.Facts)
		judge.FactSteadyReferences.Put(&e2, again)
		after := oracle.Judge(e.Start, p, judge.Offline[p.ID](&e2))
		judged++
		if before.Outcome != after.Outcome {
			differ++
			fmt.Printf("%s\n  %s: %s -> %s: %s\n", path, p.ID, before.Outcome, after.Outcome, after.Reason)
		}
	}
	return judged, differ, nil
}
