package campaign

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/runs/rejudge"
)

// Each index explores its own seeds: contiguous ranges that never
// overlap, index 0's from the first seed.
func TestSeeds(t *testing.T) {
	seen := map[uint64]int{}
	for i := range 3 {
		seeds := Seeds(100, 4, i)
		if len(seeds) != 4 || seeds[0] != 100+uint64(4*i) || seeds[3] != seeds[0]+3 {
			t.Errorf("index %d: seeds %v, want 4 from %d", i, seeds, 100+4*i)
		}
		for _, s := range seeds {
			if j, ok := seen[s]; ok {
				t.Errorf("seed %d is index %d's and index %d's", s, j, i)
			}
			seen[s] = i
		}
	}
}

// The manifest's last object is an Indexed Job whose every pod runs
// `campaign index` with its own index and the Job's uid from the
// downward API, writing to the node's folder or the claim.
func TestManifest(t *testing.T) {
	j := Job{Name: "c", Image: "steadystate/steadystate:dev", Indices: 3, Parallelism: 2, FirstSeed: 7, SeedsPerIndex: 2, Budget: 90 * time.Second, Capability: "leaderElected"}
	for _, claim := range []string{"", "results"} {
		j.Claim = claim
		out, err := j.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(string(out), "\n---\n")
		if len(docs) != 4 {
			t.Fatalf("%d objects, want namespace, service account, role binding and Job:\n%s", len(docs), out)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[3]), &job); err != nil {
			t.Fatal(err)
		}
		s := job.Spec
		if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 3 || *s.Parallelism != 2 || *s.BackoffLimitPerIndex != 0 {
			t.Errorf("Job spec %+v: want Indexed, 3 completions, 2 at once, no retry of an index", s)
		}
		c := s.Template.Spec.Containers[0]
		args := strings.Join(c.Args, " ")
		for _, want := range []string{"campaign index --index $(STEADYSTATE_INDEX) --job-uid $(STEADYSTATE_JOB_UID)", "--seed 7 --seeds-per-index 2 --budget 1m30s", "--capability leaderElected", "--out /results"} {
			if !strings.Contains(args, want) {
				t.Errorf("args %q lack %q", args, want)
			}
		}
		var fields []string
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				fields = append(fields, e.Name+"="+e.ValueFrom.FieldRef.FieldPath)
			}
		}
		if want := []string{"STEADYSTATE_INDEX=metadata.annotations['batch.kubernetes.io/job-completion-index']", "STEADYSTATE_JOB_UID=metadata.labels['batch.kubernetes.io/controller-uid']"}; !slices.Equal(fields, want) {
			t.Errorf("downward API env %v, want %v", fields, want)
		}
		v := s.Template.Spec.Volumes[1]
		switch {
		case claim == "" && (v.HostPath == nil || v.HostPath.Path != HostResults):
			t.Errorf("results volume %+v, want hostPath %s", v, HostResults)
		case claim != "" && (v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim):
			t.Errorf("results volume %+v, want claim %s", v, claim)
		}
	}
	for _, bad := range []struct {
		j    Job
		flag string
	}{
		{Job{Name: "c", Indices: 0, Parallelism: 1, SeedsPerIndex: 1, Budget: time.Minute}, "--indices 0"},
		{Job{Name: "c", Indices: 2, Parallelism: 2, SeedsPerIndex: 0, Budget: time.Minute}, "--seeds-per-index 0"},
		{Job{Name: "c", Indices: 2, Parallelism: 2, SeedsPerIndex: 1}, "--budget 0s"},
	} {
		if _, err := bad.j.Manifest(); err == nil || !strings.Contains(err.Error(), bad.flag) {
			t.Errorf("%+v: %v, want an error naming %s", bad.j, err, bad.flag)
		}
	}
}

// fakeIndex leaves index i's folder below dir as its pod would: the
// subject's copy, a seed's report with one spec that passed, and, when
// done, its record.
func fakeIndex(t *testing.T, dir string, i int, started time.Time, done bool) {
	t.Helper()
	folder := filepath.Join(dir, bundle.IndexFolder(i))
	run := filepath.Join(folder, "seed-1", "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(folder, "seed-1", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	at := started.Add(time.Second)
	// A verdict with no offline judge: verify counts it and needs no
	// evidence for it.
	entry := types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(verdict.Record{Property: verdict.Property{ID: "test/held"}, Outcome: verdict.Held})}
	reps := []types.Report{{SuiteDescription: "explore", SuiteSucceeded: true, StartTime: at, EndTime: at.Add(time.Minute),
		SpecReports: types.SpecReports{{LeafNodeType: types.NodeTypeIt, LeafNodeText: "schedule 1", State: types.SpecStatePassed, StartTime: at, EndTime: at.Add(time.Minute), ReportEntries: types.ReportEntries{entry}}}}}
	data, err := json.Marshal(reps)
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string][]byte{
		filepath.Join(run, "report.json"):                 data,
		filepath.Join(folder, SubjectCopy):                []byte("name: s\n"),
		filepath.Join(folder, "seed-1", "bin", "program"): []byte("a program, left out"),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !done {
		return
	}
	record := Record{Job: "uid-1", Index: i, Seeds: Seeds(1, 1, i), Budget: "1m0s", Capability: "leaderElected", Steadystate: "test",
		Started: started, Finished: at.Add(time.Minute), Runs: []SeedRun{{Seed: uint64(1 + i), Folder: "seed-1", Result: "no finding"}}}
	data, err = json.Marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, bundle.IndexRecord), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A campaign whose every index left its record gathers into a bundle
// verify accepts as complete; one whose index 1 failed midway gathers
// into a bundle that names index 1 missing, holds none of its partial
// results, and that neither gather nor verify calls complete.
func TestGather(t *testing.T) {
	started := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	for _, tc := range []struct {
		name             string
		done             []bool
		present, missing []int
	}{
		{"complete", []bool{true, true}, []int{0, 1}, []int{}},
		{"index 1 failed", []bool{true, false}, []int{0}, []int{1}},
		{"no index ran", []bool{false, false}, []int{}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, done := range tc.done {
				fakeIndex(t, dir, i, started.Add(time.Duration(i)*time.Second), done)
			}
			out := filepath.Join(t.TempDir(), "campaign.tar.gz")
			var log bytes.Buffer
			m, err := Gather(dir, out, "c", len(tc.done), &log)
			complete := len(tc.missing) == 0
			if complete != (err == nil) || (!complete && (!errors.Is(err, ErrIncomplete) || cli.ExitCode(err) != cli.ExitError)) {
				t.Fatalf("gather: %v (exit %d), want complete=%v\n%s", err, cli.ExitCode(err), complete, log.String())
			}
			c := m.Campaign
			if !slices.Equal(c.Present, tc.present) || !slices.Equal(c.Missing, tc.missing) || c.Complete() != complete {
				t.Errorf("campaign %+v: want present %v, missing %v", c, tc.present, tc.missing)
			}
			if len(tc.present) > 0 && (c.UID != "uid-1" || c.FirstSeed != 1 || c.SeedsPerIndex != 1 || !m.Started.Equal(started) || !m.Passed) {
				t.Errorf("manifest %+v: want Job uid-1, seeds from 1, one per index, started %s, passed", m, started)
			}
			for _, f := range m.Files {
				if strings.HasPrefix(f.Path, "index-1/") && !slices.Contains(tc.present, 1) || strings.Contains(f.Path, "/bin/") {
					t.Errorf("the bundle holds %s", f.Path)
				}
			}
			var verified bytes.Buffer
			err = rejudge.Bundle(out, nil, false, &verified)
			// Incomplete, a campaign whose present indices found nothing
			// is an error (3), and so is its gathering.
			if want := map[bool]int{true: 0, false: 3}[complete]; cli.ExitCode(err) != want {
				t.Errorf("verify: exit %d, want %d (%v)", cli.ExitCode(err), want, err)
			}
			switch {
			case complete && (err != nil || !strings.Contains(verified.String(), "verify: the campaign is complete")):
				t.Errorf("verify: %v\n%s", err, verified.String())
			case !complete && (err == nil || !strings.Contains(err.Error(), "the campaign is incomplete")):
				t.Errorf("verify of an incomplete campaign: %v, want it refused as incomplete\n%s", err, verified.String())
			case !complete && len(tc.present) > 0 && !strings.Contains(err.Error(), "index(es) 1 of 2 left no results"):
				t.Errorf("verify: %v, want index 1 named missing", err)
			}
		})
	}
}

// TestGatherWritesCampaignTarGzByDefault: gather's help names its default
// bundle, campaign.tar.gz (a move of the command once cut it to tar.gz).
func TestGatherWritesCampaignTarGzByDefault(t *testing.T) {
	err := Command(t.Context(), config.Settings{}, []string{"gather", "-h"}, nil, nil)
	var h cli.HelpRequest
	if !errors.As(err, &h) {
		t.Fatalf("gather -h: %v, want its help", err)
	}
	if !strings.Contains(h.Text, "[--out campaign.tar.gz]") || !strings.Contains(h.Text, `(default "campaign.tar.gz")`) {
		t.Errorf("gather's help does not name campaign.tar.gz as its default bundle:\n%s", h.Text)
	}
}
