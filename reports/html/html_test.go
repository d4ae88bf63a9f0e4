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
		if err := os.MkdirAll(filepath.Dir(filepath.Join(run, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
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
// console error and its DOM holds the broken property's marker, named by
// the request that broke it, and the Lease holders by name; for the run
// whose violation comes in its last 3%, the timeline opens on it and
// keeps the whole run one click away. The screenshots are kept in
// $ARTIFACTS (or the test's folder).
func TestPageInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("STEADYSTATE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("chromium is required: %v", err)
		}
		t.Skip("needs Debian's chromium (apt-get install chromium; .ci/run installs it and sets STEADYSTATE_REQUIRE_BROWSER=1)")
	}
	dir := t.TempDir()
	shots := os.Getenv("ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		page []byte
		want []string
	}{
		{"report", render(t), []string{`data-property="leader/only-holder-writes" data-request="leader-0 create configmaps (new)"`,
			`>leader-0<`, `>leader-1<`, `<title>leader (ignore-lost-lease) — self-test, 2026-11-23 12:55 UTC: PASSED</title>`}},
		{"report-start-on-shutdown", []byte(pageOf(t, startOnShutdown)), []string{`data-request="leader-1 create configmaps (new)"`,
			`>leader-0<`, `data-from="+0.833s"`, `<summary>Show the whole run (0s to 1.072s)</summary>`}},
	} {
		page := filepath.Join(dir, c.name+".html")
		if err := os.WriteFile(page, c.page, 0o644); err != nil {
			t.Fatal(err)
		}
		dom, logs := chromium(t, browser, page, "--dump-dom")
		for _, want := range c.want {
			if !strings.Contains(dom, want) {
				t.Errorf("%s: the rendered DOM lacks %s", c.name, want)
			}
		}
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
				t.Errorf("%s: console: %s", c.name, line)
			}
		}
		shot := filepath.Join(shots, c.name+"-screenshot.png")
		chromium(t, browser, page, "--screenshot="+shot, "--window-size=1400,1600", "--hide-scrollbars")
		if info, err := os.Stat(shot); err != nil || info.Size() == 0 {
			t.Fatalf("no screenshot at %s: %v", shot, err)
		}
		t.Logf("screenshot: %s", shot)
	}
}

// chromium runs the headless browser on page with extra flags, its
// profile beside the page.
func chromium(t *testing.T, browser, page string, extra ...string) (stdout, stderr string) {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(filepath.Dir(page), "profile"), "--enable-logging=stderr", "--v=0"}, extra...)
	cmd := exec.CommandContext(t.Context(), browser, append(args, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
	}
	return out.String(), errb.String()
}
