package html

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// render writes the page of the recorded leader run under testdata: the
// self-test's leader suite on a bug mode, its report and the failing
// spec's evidence.
func render(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, "self-test", "../testdata/leader-run"); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPageOfARealRun(t *testing.T) {
	page := string(render(t))
	for _, want := range []string{
		`<td class="outcome">broken 1/1</td>`,                             // the finding, in the table
		`leader/ignore-lost-lease`,                                        // its cell
		`class="broken-marker" data-property="leader/only-holder-writes"`, // marked on the timeline
		`>Lease holder<`,                                                  // the holder over time
		`>faults<`, `class="fault"`,                                       // the partition as a band
		`href="#f1"`, // the row links to its timeline
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), banned) {
			t.Errorf("the page is not self-contained: it has %q", banned)
		}
	}
	// Every timeline is well-formed SVG.
	for _, svg := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1) {
		if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
			t.Errorf("a timeline is not well-formed: %v", err)
		}
	}
}

// Evidence an earlier run left in the folder is not shown as this run's.
func TestStaleEvidenceIsLeftOut(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "leader", "ignore-lost-lease", "1")
	for _, f := range []string{"report.json", "partitioned/evidence.json"} {
		data, err := os.ReadFile(filepath.Join("../testdata/leader-run/leader/ignore-lost-lease/1", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "report.json" { // the report of a later run
			data = []byte(strings.Replace(string(data), `"StartTime": "2026-11-23T`, `"StartTime": "2027-11-23T`, 1))
		}
		os.MkdirAll(filepath.Dir(filepath.Join(run, f)), 0o755)
		os.WriteFile(filepath.Join(run, f), data, 0o644)
	}
	var b bytes.Buffer
	if err := Write(&b, "x", dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="broken-marker"`) || !strings.Contains(b.String(), "broken 1/1") {
		t.Errorf("stale evidence shown, or the spec lost its outcome")
	}
}

func TestWriteRefusesAFolderWithoutReports(t *testing.T) {
	err := Write(new(bytes.Buffer), "x", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no report.json below") {
		t.Errorf("got %v", err)
	}
}

// The page in headless Chromium (Debian's chromium): it loads with no
// console error and its DOM holds the broken property's marker; the
// screenshot is kept in $ARTIFACTS (or the test's folder).
func TestPageInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("STEADYSTATE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("chromium is required: %v", err)
		}
		t.Skip("needs Debian's chromium (apt-get install chromium; .ci/run installs it and sets STEADYSTATE_REQUIRE_BROWSER=1)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, render(t), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	os.MkdirAll(shots, 0o755)
	shot := filepath.Join(shots, "report-screenshot.png")
	run := func(extra ...string) (stdout, stderr string) {
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0"}, extra...)
		cmd := exec.CommandContext(t.Context(), browser, append(args, "file://"+page)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := run("--dump-dom")
	if !strings.Contains(dom, `data-property="leader/only-holder-writes"`) {
		t.Errorf("the rendered DOM has no marker for the broken property")
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	run("--screenshot="+shot, "--window-size=1400,1600", "--hide-scrollbars")
	if info, err := os.Stat(shot); err != nil || info.Size() == 0 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}
