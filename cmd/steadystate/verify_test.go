package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// The specs of the recorded leader run a test bundle holds, and the
// evidence each kept: a spec that passed and one that broke a property.
const (
	followerSpec  = "A leader-elected manager makes no leader-only writes when a non-leader shuts down gracefully"
	partitionSpec = "A leader-elected manager stops writing when partitioned, before another replica takes over"
	runDir        = "leader/subject-correct/1"
)

// runStarted is before every recorded report and evidence file the test
// bundles hold.
var runStarted = time.Date(2026, 11, 23, 12, 24, 0, 0, time.UTC)

// bundleRun says how conformRun differs from the run as recorded.
type bundleRun struct {
	// drop leaves the named spec's evidence out.
	drop string
	// report edits the report before it is written.
	report func(reps []types.Report)
}

// conformRun is a results folder as conform leaves it, from recorded
// files: the leader suite's report on a bug mode (less the failover
// spec), with the evidence of each spec that judged a property.
func conformRun(t *testing.T, r bundleRun) string {
	t.Helper()
	dir := t.TempDir()
	reps, err := verdict.ReadReport("../../reports/testdata/leader-run/leader/ignore-lost-lease/1/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var kept []types.SpecReport
	for _, s := range reps[0].SpecReports {
		if !strings.Contains(s.LeafNodeText, "fails over") {
			kept = append(kept, s)
		}
	}
	reps[0].SpecReports = kept
	if r.report != nil {
		r.report(reps)
	}
	data, err := json.Marshal(reps)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, runDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runDir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, from := range map[string]string{
		followerSpec:  "../../judge/testdata/leader-correct-follower-shutdown.json",
		partitionSpec: "../../reports/testdata/leader-run/leader/ignore-lost-lease/1/partitioned/evidence.json",
	} {
		if spec == r.drop {
			continue
		}
		if err := copyFile(from, filepath.Join(dir, runDir, testenv.ArtifactsFolder(spec), "evidence.json")); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyFile("../../fixtures/subjects/replicaset.yaml", filepath.Join(dir, "subject/subject.yaml")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeBundle packs conformRun's folder as conform would, with the
// manifest saying passed and the run starting at started.
func writeBundle(t *testing.T, passed bool, started time.Time, r bundleRun) (path, digest string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "conformance.tar.gz")
	m := bundle.Manifest{Started: started, Created: time.Now(), Steadystate: "test", Provider: "local", Kubernetes: "v1.36.3", Subject: "subject/subject.yaml", Passed: passed}
	m, err := bundle.Write(out, conformRun(t, r), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, m.Digest
}

// verify runs `steadystate verify` with args and returns its stdout, its
// stderr and its exit code.
func verify(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return runCode(t, append([]string{"verify"}, args...)...)
}

// verify re-judges the passed spec's verdicts as well as the failed
// one's, each from its own evidence, and says how many; the bundle
// verifies, and its subject broke a property: a finding, exit 1.
func TestVerifyRejudgesEveryVerdict(t *testing.T) {
	path, digest := writeBundle(t, false, runStarted, bundleRun{})
	out, stderr, code := verify(t, "--digest", digest, path)
	for _, want := range []string{
		"every sum matches the manifest, whose sha256 is the published digest",
		"BROKEN", "leader/only-holder-writes",
		"re-judged from " + runDir + "/" + testenv.ArtifactsFolder(followerSpec) + "/evidence.json",
		"re-judged from " + runDir + "/" + testenv.ArtifactsFolder(partitionSpec) + "/evidence.json",
		"re-judged 6 verdict(s) of 2 spec(s) from their evidence, 0 differ",
		"is intact and its verdicts stand: the manifest's sha256 is the published digest",
		// A bundle from before the manifest kept the bound capabilities.
		"capabilities run: leaderElected (suite leader); the capabilities the subject binds are not recorded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if code != 1 || lastLine(out) != "verify: NOT PASSED — 1 broken (findings), 0 error" {
		t.Errorf("verify: exit %d, want 1 and the result last\n%s%s", code, out, stderr)
	}
	// The digest may follow the bundle too.
	if _, stderr, code := verify(t, path, "--digest", "sha256:"+digest); code != 1 {
		t.Errorf("verify BUNDLE --digest: exit %d\n%s", code, stderr)
	}
}

// rewriteBundle copies a bundle, editing the report with edit and its
// line in the manifest to the edited report's sum: an archive edited
// whole.
func rewriteBundle(t *testing.T, in string, edit func(report []byte) []byte) string {
	t.Helper()
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := filepath.Join(t.TempDir(), "edited.tar.gz")
	var buf bytes.Buffer
	gw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gw)
	var body, manifest []byte
	var files [][2]string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		switch {
		case strings.HasSuffix(h.Name, "report.json"):
			b = edit(b)
			body = b
		case h.Name == bundle.ManifestName:
			// The manifest comes first in a bundle: its report line is
			// fixed up after the report is read.
			manifest = b
			continue
		}
		files = append(files, [2]string{h.Name, string(b)})
	}
	var m bundle.Manifest
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	for i, f := range m.Files {
		if strings.HasSuffix(f.Path, "report.json") {
			m.Files[i].SHA256, m.Files[i].Size = hex.EncodeToString(sum[:]), int64(len(body))
		}
	}
	manifest, _ = json.MarshalIndent(m, "", "  ")
	for _, f := range append([][2]string{{bundle.ManifestName, string(manifest)}}, files...) {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// Each bad bundle is refused with one line naming the file and what is
// wrong, and exit 3: it cannot be trusted, whatever its verdicts say. A
// bundle that names nothing, or a digest that is none, is input refused
// (exit 2).
func TestVerifyRefuses(t *testing.T) {
	good, digest := writeBundle(t, false, runStarted, bundleRun{})
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(t.TempDir(), "truncated.tar.gz")
	if err := os.WriteFile(truncated, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	noEvidence, _ := writeBundle(t, false, runStarted, bundleRun{drop: followerSpec})
	stale, _ := writeBundle(t, false, time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC), bundleRun{})
	staleEvidence, _ := writeBundle(t, false, time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC), bundleRun{})
	// The passed spec's report says its one-writer invariant broke; its
	// evidence says it held.
	forged, _ := writeBundle(t, false, runStarted, bundleRun{report: func(reps []types.Report) {
		for i, s := range reps[0].SpecReports {
			if s.LeafNodeText != strings.TrimPrefix(followerSpec, "A leader-elected manager ") {
				continue
			}
			for j, e := range s.ReportEntries {
				if e.Name == verdict.EntryName && strings.Contains(e.Value.AsJSON, `"leader/only-holder-writes"`) {
					reps[0].SpecReports[i].ReportEntries[j].Value = types.WrapEntryValue(json.RawMessage(strings.Replace(e.Value.AsJSON, `"outcome":"held"`, `"outcome":"broken"`, 1)))
				}
			}
		}
	}})
	// The report and its line in the manifest edited together, leaving
	// every verdict as it was.
	edited := rewriteBundle(t, good, func(report []byte) []byte {
		return bytes.Replace(report, []byte(`"SuiteDescription":"Leader election"`), []byte(`"SuiteDescription":"Leader election, edited"`), 1)
	})
	wrong := fmt.Sprintf("%x", sha256.Sum256([]byte("another bundle")))
	noDigest := func(path string) []string { return []string{"--no-digest", path} }
	for name, tc := range map[string]struct {
		args  []string
		code  int
		want  string
		usage bool
	}{
		"a bundle that claims a pass": {noDigest(mustBundle(writeBundle(t, true, runStarted, bundleRun{}))), 3, "the manifest says passed=true, its reports say passed=false", false},
		"a truncated bundle":          {noDigest(truncated), 3, "truncated.tar.gz: truncated or corrupt", false},
		"no bundle":                   {noDigest("/nonexistent/b.tar.gz"), 2, "no such file", false},
		"a passed spec with no evidence": {noDigest(noEvidence), 3, fmt.Sprintf("spec %q (passed) recorded evidence/complete held and kept no evidence: %s/%s/evidence.json is missing",
			followerSpec, runDir, testenv.ArtifactsFolder(followerSpec)), false},
		"a report older than its run":    {noDigest(stale), 3, runDir + "/report.json: the report's run began 2026-11-23 12:55:12.882 UTC, before this bundle's run began 2026-11-23 13:00:00.000 UTC", false},
		"evidence older than its run":    {noDigest(staleEvidence), 3, "/evidence.json: the spec began 2026-11-23 12:24:09.613 UTC, before this bundle's run began", false},
		"a verdict its evidence denies":  {noDigest(forged), 3, "1 verdict(s) differ from the evidence they were judged from", false},
		"a wrong digest":                 {[]string{"--digest", wrong, good}, 3, "conformance.tar.gz: its manifest.json has sha256 " + digest + ", not the published " + wrong, false},
		"report and manifest edited":     {[]string{"--digest", digest, edited}, 3, "edited.tar.gz: its manifest.json has sha256", false},
		"not a digest":                   {[]string{"--digest", "abc", good}, 2, `--digest "abc" is not a sha256`, true},
		"two bundles":                    {[]string{"--no-digest", good, good}, 2, "verify takes one bundle", true},
		"neither digest nor --no-digest": {[]string{edited}, 2, "verify needs --digest SHA256, the manifest digest conform printed", true},
		"both digest and --no-digest":    {[]string{"--digest", digest, "--no-digest", good}, 2, "verify takes --digest or --no-digest, not both", true},
	} {
		out, stderr, code := verify(t, tc.args...)
		first, _, usage := strings.Cut(stderr, "\n\nusage:")
		if code != tc.code || !strings.Contains(first, tc.want) || strings.Count(strings.TrimSpace(first), "\n") > 0 || usage != tc.usage {
			t.Errorf("%s: exit %d, want %d and one line with %q, got:\n%s", name, code, tc.code, tc.want, stderr)
		}
		if strings.Contains(out, "verdicts stand") {
			t.Errorf("%s: verify says the verdicts stand:\n%s", name, out)
		}
	}
	// With --no-digest, the edited archive is consistent with its own
	// manifest, and verify says that is all it checked: only the digest
	// published apart catches it.
	out, stderr, code := verify(t, "--no-digest", edited)
	if code != 1 || !strings.Contains(out, "Leader election, edited") || !strings.Contains(out, "is intact and its verdicts stand: internal consistency only (--no-digest)") {
		t.Errorf("the edited bundle with --no-digest: exit %d, want 1 (its finding) and internal consistency only:\n%s%s", code, out, stderr)
	}
}

func mustBundle(path, _ string) string { return path }

// copyFile copies from to to, making its folder.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
