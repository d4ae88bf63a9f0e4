package campaign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/bundle"
)

// ErrIncomplete marks a campaign some of whose indices left no results.
var ErrIncomplete = errors.New("the campaign is incomplete")

// Gather packs the results of the campaign of Job job with indices
// indices, the folder
// dir holding each index's folder (index-<i>, as the Job's pods left
// them), into one bundle out, whose manifest lists the indices present
// and missing. An index is present when its folder holds its record; a
// folder without one (its pod failed midway) is left out of the bundle.
// It fails, once the bundle is written, when an index is missing
// (ErrIncomplete) or a present one's explorations did not pass.
func Gather(dir, out, job string, indices int, stdout io.Writer) (bundle.Manifest, error) {
	var m bundle.Manifest
	if indices < 1 {
		return m, fmt.Errorf("--indices %d: give the number of indices the campaign's Job had", indices)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return m, fmt.Errorf("%s is not a folder: give the folder holding the campaign's index-<i> folders (on kind: docker cp <node>:%s/<the Job's uid> DIR)", dir, HostResults)
	}
	c := &bundle.Campaign{Job: job, Indices: indices, Present: []int{}, Missing: []int{}}
	var recs []Record
	for i := range indices {
		rec, err := readRecord(filepath.Join(dir, bundle.IndexFolder(i), bundle.IndexRecord))
		if errors.Is(err, fs.ErrNotExist) {
			c.Missing = append(c.Missing, i)
			continue
		}
		if err != nil {
			return m, err
		}
		if rec.Index != i {
			return m, fmt.Errorf("%s is index %d's record, not index %d's: give the folder of one campaign as its pods left it", filepath.Join(dir, bundle.IndexFolder(i), bundle.IndexRecord), rec.Index, i)
		}
		if len(recs) > 0 && rec.Job != recs[0].Job {
			return m, fmt.Errorf("%s is of Job %s, %s of Job %s: give the folder of one campaign's Job", bundle.IndexFolder(i), rec.Job, bundle.IndexFolder(recs[0].Index), recs[0].Job)
		}
		c.Present = append(c.Present, i)
		recs = append(recs, rec)
	}
	m = bundle.Manifest{Created: time.Now().UTC(), Provider: "existing", Campaign: c}
	if len(recs) > 0 {
		first := recs[0]
		c.UID, c.Budget, c.Capability, c.SeedsPerIndex = first.Job, first.Budget, first.Capability, len(first.Seeds)
		if len(first.Seeds) > 0 {
			c.FirstSeed = first.Seeds[0] - uint64(first.Index*len(first.Seeds))
		}
		m.Steadystate, m.Kubernetes = first.Steadystate, first.Kubernetes
		m.Subject = bundle.IndexFolder(first.Index) + "/" + SubjectCopy
		m.Started = first.Started
		for _, r := range recs {
			if r.Started.Before(m.Started) {
				m.Started = r.Started
			}
		}
	} else {
		// No index ran: the bundle holds only its summary, and says so.
		m.Started = m.Created
	}
	passed, broke, err := reportsPassed(dir, c.Present)
	if err != nil {
		return m, err
	}
	m.Passed = passed
	var summary bytes.Buffer
	writeSummary(&summary, *c, recs)
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), summary.Bytes(), 0o644); err != nil {
		return m, err
	}
	fmt.Fprintf(stdout, "%s\n", summary.String())
	keep := map[string]bool{"summary.md": true}
	for _, i := range c.Present {
		keep[bundle.IndexFolder(i)] = true
	}
	m, err = bundle.Write(out, dir, m, func(rel string) bool {
		parts := strings.Split(rel, "/")
		// Only the present indices' folders, less each run's programs.
		return !keep[parts[0]] || (len(parts) == 3 && parts[2] == "bin")
	})
	if err != nil {
		return m, err
	}
	fmt.Fprintf(stdout, "campaign: bundle %s (%d files), manifest digest sha256:%s\n", out, len(m.Files), m.Digest)
	fmt.Fprintf(stdout, "campaign: `steadystate verify --digest %s %s` checks the bundle against it and re-judges every verdict\n", m.Digest, out)
	// A finding in an index present is the campaign's result, even when
	// it is incomplete or an index ended in an error: it stands on its
	// own evidence.
	kind := cli.ErrHarness
	if broke {
		kind = cli.ErrFinding
	}
	switch {
	case !c.Complete():
		return m, cli.Mark(kind, fmt.Errorf("%w: index(es) %s of %d left no results (their pods failed or never ran; `kubectl -n %s logs` their pods): the bundle holds indices %s only", ErrIncomplete, ints(c.Missing), indices, Namespace, ints(c.Present)))
	case !m.Passed:
		return m, cli.Mark(kind, errors.New("the campaign's explorations did not pass: see the summary above (broken: a finding; error: the harness or the subject's set-up)"))
	}
	return m, nil
}

func readRecord(p string) (Record, error) {
	var rec Record
	data, err := os.ReadFile(p)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s does not parse (%v): an index's record is written whole or not at all; was it edited?", p, err)
	}
	return rec, nil
}

// reportsPassed judges the present indices' reports as verify does:
// they passed when no spec broke or ended in an error and at least one
// report had a spec that passed; none present did not pass. broke says a
// spec broke a property.
func reportsPassed(dir string, present []int) (passed, broke bool, err error) {
	passed, read := true, false
	for _, i := range present {
		err := filepath.WalkDir(filepath.Join(dir, bundle.IndexFolder(i)), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "report.json" {
				return err
			}
			reps, err := verdict.ReadReport(p)
			if err != nil {
				return err
			}
			read = true
			count := reports.PrintVerdicts(reps, "specs", io.Discard)
			if count[verdict.BrokenSpec]+count[verdict.Error] > 0 || count[verdict.Passed] == 0 {
				passed = false
			}
			broke = broke || count[verdict.BrokenSpec] > 0
			return nil
		})
		if err != nil {
			return false, false, err
		}
	}
	return passed && read, broke, nil
}

func writeSummary(w io.Writer, c bundle.Campaign, recs []Record) {
	fmt.Fprintf(w, "# Campaign %s\n\n", c.Job)
	fmt.Fprintf(w, "%d of %d indices present", len(c.Present), c.Indices)
	if len(c.Missing) > 0 {
		fmt.Fprintf(w, "; missing: %s (incomplete)", ints(c.Missing))
	}
	fmt.Fprintf(w, "\n\n| index | seeds | budget | capability | seed: result |\n|---|---|---|---|---|\n")
	for _, r := range recs {
		var results []string
		for _, s := range r.Runs {
			results = append(results, fmt.Sprintf("%d: %s", s.Seed, s.Result))
		}
		fmt.Fprintf(w, "| %d | %v | %s | %s | %s |\n", r.Index, r.Seeds, r.Budget, r.Capability, strings.Join(results, "; "))
	}
	for _, i := range c.Missing {
		fmt.Fprintf(w, "| %d | missing | | | no results |\n", i)
	}
}

func ints(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range slices.Sorted(slices.Values(xs)) {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
