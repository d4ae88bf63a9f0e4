package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/runs/conformance"
	"github.com/steadystate-dev/steadystate/runs/exploration"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// SubjectCopy is the subject file's copy in an index's folder.
const SubjectCopy = "subject.yaml"

// Record is what one index did: written when every seed's exploration
// ran to its report, so that its presence says the index's results are
// whole.
type Record struct {
	// Job is the Job's uid, Index the index.
	Job   string `json:"job"`
	Index int    `json:"index"`
	// Seeds are the seeds explored, each for Budget, of Capability.
	Seeds      []uint64 `json:"seeds"`
	Budget     string   `json:"budget"`
	Capability string   `json:"capability"`
	// Steadystate is the version that ran; Kubernetes the cluster's.
	Steadystate string `json:"steadystate"`
	Kubernetes  string `json:"kubernetes"`
	// Started and Finished bound the index's run: every report and
	// evidence file of its folder is from after Started.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Runs are each seed's exploration: its folder and how it ended.
	Runs []SeedRun `json:"runs"`
}

// SeedRun is one seed's exploration run of an index.
type SeedRun struct {
	Seed uint64 `json:"seed"`
	// Folder is the run's folder in the index's, Result how it ended:
	// "no finding", or why explore failed (a finding, an error).
	Folder string `json:"folder"`
	Result string `json:"result"`
}

// Index is one index of a campaign, as its pod runs it.
type Index struct {
	// Job is the Job's uid; Index the index; Out the folder the
	// campaign's results go below (Out/<Job>/index-<Index>).
	Job   string
	Index int
	Out   string
	// Subject is the subject file; Capability the one explored (empty:
	// the subject's first that exploration drives).
	Subject, Capability string
	// FirstSeed, SeedsPerIndex and Budget are the campaign's.
	FirstSeed     uint64
	SeedsPerIndex int
	Budget        time.Duration
}

// Folder is the index's results folder.
func (x Index) Folder() string { return filepath.Join(x.Out, x.Job, bundle.IndexFolder(x.Index)) }

// Run explores each of the index's seeds in turn, with the settings e,
// into its folder (emptied first), and writes its record last. A seed
// whose exploration found something is a result, kept in the folder; one
// whose run left no report is the index's failure, and the index then
// writes no record: the gathered bundle names it missing.
func (x Index) Run(ctx context.Context, e config.Settings, stdout, stderr io.Writer) error {
	switch {
	case x.Job == "":
		return errors.New("--job-uid is empty: the Job's pod gives it from its batch.kubernetes.io/controller-uid label")
	case x.Index < 0:
		return fmt.Errorf("--index %d: an index is 0 or more", x.Index)
	}
	dir := x.Folder()
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The index keeps the subject file with its secrets hidden, as a
	// conformance bundle does.
	upstream, _ := e.UpstreamRoot()
	data, err := subjectfile.RedactedCopy(x.Subject, subjectfile.Options{FromImage: true, UpstreamDir: upstream})
	if err != nil {
		return fmt.Errorf("subject file: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, SubjectCopy), data, 0o644); err != nil {
		return err
	}
	rec := Record{Job: x.Job, Index: x.Index, Seeds: Seeds(x.FirstSeed, x.SeedsPerIndex, x.Index), Budget: x.Budget.String(),
		Steadystate: conformance.SteadystateVersion(), Kubernetes: conformance.ServerVersion(ctx), Started: time.Now().UTC()}
	fmt.Fprintf(stderr, "campaign: index %d explores seeds %v, %s each\n", x.Index, rec.Seeds, x.Budget)
	// Every spec keeps its evidence, passed or not, for verify.
	e.KeepEvidence = true
	for _, seed := range rec.Seeds {
		r := exploration.Run{Subject: x.Subject, Capability: x.Capability, Budget: x.Budget, Seed: seed, Repeat: 1, Confirm: 2}
		if err := r.Configure(e); err != nil {
			return err
		}
		rec.Capability = r.Capability
		folder := fmt.Sprintf("seed-%d", seed)
		r.Matrix.Root = filepath.Join(dir, folder)
		r.Matrix.Env = append(r.Matrix.Env, "STEADYSTATE_KEEP_EVIDENCE=1")
		err := r.Run(ctx, stdout, stderr)
		if ctx.Err() != nil {
			return fmt.Errorf("index %d interrupted at seed %d: it leaves no record, and the gathered bundle names it missing", x.Index, seed)
		}
		if !hasReport(r.Matrix.Root) {
			return fmt.Errorf("index %d: seed %d's exploration left no report (%v): the index leaves no record, and the gathered bundle names it missing", x.Index, seed, err)
		}
		result := "no finding"
		if err != nil {
			result = err.Error()
		}
		rec.Runs = append(rec.Runs, SeedRun{Seed: seed, Folder: folder, Result: result})
	}
	rec.Finished = time.Now().UTC()
	if err := atomicfile.Write(filepath.Join(dir, bundle.IndexRecord), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "campaign: index %d done: %s\n", x.Index, filepath.Join(dir, bundle.IndexRecord))
	return nil
}

// hasReport says whether a report.json is below dir.
func hasReport(dir string) bool {
	found := false
	// An unreadable folder holds no report: its walk error is not one.
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "report.json" {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
