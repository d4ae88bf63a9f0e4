package html

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// offendingMark is a request marked as the one that broke a property.
var offendingMark = regexp.MustCompile(`class="req [^"]*offending"`)

// timelines are the page's SVG timelines, in order.
func timelines(page string) []string {
	return regexp.MustCompile(`(?s)<svg class="timeline".*?</svg>`).FindAllString(page, -1)
}

// seconds is an SVG's data-from or data-to, in seconds from the run's
// start.
func seconds(t *testing.T, svg, attr string) float64 {
	t.Helper()
	m := regexp.MustCompile(attr + `="([-+0-9.]+)s"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("the timeline has no %s", attr)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// markerX is where the broken property's marker stands in svg.
func markerX(t *testing.T, svg string) float64 {
	t.Helper()
	m := regexp.MustCompile(`<g class="broken-marker"[^>]*><line x1="([0-9.]+)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("the timeline has no marker")
	}
	x, _ := strconv.ParseFloat(m[1], 64)
	return x
}

// A run of 1.07 s whose fault and violation come in its last 45 ms opens
// on them, not on the whole run squeezed into its right edge; the whole
// run is one click below.
func TestTimelineOpensOnTheFaultsAndTheViolation(t *testing.T) {
	page := pageOf(t, startOnShutdown)
	svgs := timelines(page)
	if len(svgs) != 2 {
		t.Fatalf("want the opening timeline and the whole run's, got %d timelines", len(svgs))
	}
	from, to := seconds(t, svgs[0], "data-from"), seconds(t, svgs[0], "data-to")
	if from > 1.032 || to < 1.050 || to-from > 0.3 {
		t.Errorf("the timeline opens on %+.3fs to %+.3fs: want the fault (+1.032s to +1.050s) and the violation (+1.039s), with a margin, in at most 0.3s", from, to)
	}
	if x := markerX(t, svgs[0]); x > labelW+0.9*plotW {
		t.Errorf("the marker stands at %.0f of the plot's %d..%d: squeezed into its right edge", x, labelW, labelW+plotW)
	}
	whole := regexp.MustCompile(`(?s)<details class="whole"><summary>[^<]*</summary>(.*?)</details>`).FindStringSubmatch(page)
	if whole == nil || whole[1] != svgs[1] {
		t.Fatalf("the whole run is not one click away (a <details> holding its timeline)")
	}
	if from, to := seconds(t, svgs[1], "data-from"), seconds(t, svgs[1], "data-to"); from != 0 || to < 1.07 {
		t.Errorf("the whole run's timeline spans %+.3fs to %+.3fs, want all of its 1.072s", from, to)
	}
}

// A partition over the whole run opens where it heals: the successor
// takes the Lease and the old leader writes, in the run's last 40 ms.
func TestTimelineOfAFaultOverTheWholeRunOpensWhereItEnds(t *testing.T) {
	svgs := timelines(string(render(t)))
	if len(svgs) != 2 {
		t.Fatalf("want the opening timeline and the whole run's, got %d timelines", len(svgs))
	}
	from, to := seconds(t, svgs[0], "data-from"), seconds(t, svgs[0], "data-to")
	if from > 4.257 || to < 4.261 || to-from > 0.5 {
		t.Errorf("the timeline opens on %+.3fs to %+.3fs: want the partition's end (+4.257s) and the violation (+4.261s), with a margin, in at most 0.5s", from, to)
	}
}

// The marker names the request that broke the property: its replica,
// verb and object, and that request stands out in its replica's row.
func TestMarkerNamesTheOffendingRequest(t *testing.T) {
	for _, c := range []struct {
		name, page, want string
	}{
		{"start-on-shutdown", pageOf(t, startOnShutdown), "leader-1 create configmaps (new)"},
		// leader-0 also listed configmaps in that millisecond, leader-1
		// read Leases: only the write broke the property.
		{"ignore-lost-lease", string(render(t)), "leader-0 create configmaps (new)"},
		{"controller-runtime", pageOf(t, crShutdown), "controller-runtime-v0-17-2-1 create configmaps (new)"},
	} {
		for _, svg := range timelines(c.page) {
			if !strings.Contains(svg, `data-request="`+c.want+`"`) || !strings.Contains(svg, `<text class="request"`) || !strings.Contains(svg, ">"+c.want+"</text>") {
				t.Errorf("%s: the marker does not name %q", c.name, c.want)
			}
			if n := len(offendingMark.FindAllString(svg, -1)); n != 1 {
				t.Errorf("%s: %d requests marked as the offending one, want 1", c.name, n)
			}
		}
	}
}

// A property that broke where no write was made (a deadline, a recorded
// change) names no request.
func TestMarkerOfNoRequestNamesNone(t *testing.T) {
	dir := runOf(t, startOnShutdown)
	for _, f := range []string{"report.json", filepath.Join("spec", "evidence.json")} {
		p := filepath.Join(dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// +0.500s: nobody wrote then.
		data = bytes.ReplaceAll(data, []byte(`+1.039s`), []byte(`+0.500s`))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, "x", dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `data-request=""`) || offendingMark.MatchString(b.String()) {
		t.Errorf("a marker where no write was made names a request")
	}
}

// The Lease-holder lane names each holder: the replica, and beside it
// the identity it chose when that is its own (controller-runtime's
// hostname_UUID); a term too short to hold its name has it beside it.
func TestHolderLaneNamesEachHolder(t *testing.T) {
	names := func(page string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<text class="band-name"[^>]*>([^<]*)<`).FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, c := range []struct {
		name, page string
		want       []string
	}{
		{"ignore-lost-lease", string(render(t)), []string{"leader-0", "leader-1"}},
		{"start-on-shutdown", pageOf(t, startOnShutdown), []string{"leader-0"}},
		{"controller-runtime", pageOf(t, crShutdown), []string{"controller-runtime-v0-17-2-0 (vm_af9973ca-"}},
	} {
		got := names(c.page)
		for _, w := range c.want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Errorf("%s: the holder lane names %q, not %s", c.name, got, w)
			}
		}
	}
}

// The title and the heading name the subject, the run and its result.
func TestTitleNamesSubjectRunAndResult(t *testing.T) {
	title := func(page string) string {
		m := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(page)
		if m == nil || !strings.Contains(page, "<h1>"+m[1]+"</h1>") {
			t.Fatalf("the page has no title, or its heading differs")
		}
		return m[1]
	}
	// A self-test matrix whose bug mode was caught: as intended.
	if got, want := title(string(render(t))), "leader (ignore-lost-lease) — self-test, 2026-11-23 12:55 UTC: PASSED"; got != want {
		t.Errorf("self-test: title %q, want %q", got, want)
	}
	// One run (make e2e's folder, no matrix): the subject is not known.
	if got, want := title(pageOf(t, startOnShutdown)), "steadystate: _artifacts, 2026-11-23 12:24 UTC: NOT PASSED"; got != want {
		t.Errorf("one run: title %q, want %q", got, want)
	}
	// The same cell as a correct subject (a false alarm) and as a
	// conformance run's (a finding): not passed.
	for _, c := range []struct {
		name   string
		edit   func(*reports.Cell)
		title  string
		detail string
	}{
		{"false alarm", func(c *reports.Cell) { c.Bug = nil }, "leader (correct) — x, 2026-11-23 12:55 UTC: NOT PASSED",
			"1 of 1 cells not as intended: leader leader correct: false alarm"},
		{"conformance", func(c *reports.Cell) { c.Bug, c.Conformance, c.Subject = nil, true, "acme" }, "acme (correct) — x, 2026-11-23 12:55 UTC: NOT PASSED",
			"1 broken (findings), 0 error"},
	} {
		dir := copyRun(t, "../testdata/leader-run")
		editMatrix(t, dir, c.edit)
		var b bytes.Buffer
		if err := Write(&b, "x", dir); err != nil {
			t.Fatal(err)
		}
		if got := title(b.String()); got != c.title {
			t.Errorf("%s: title %q, want %q", c.name, got, c.title)
		}
		if !strings.Contains(b.String(), c.detail) {
			t.Errorf("%s: the result does not say %q", c.name, c.detail)
		}
	}
}

// One run's specs name their subjects (verdict.SubjectEntry): the title
// names each once, their mode once when they share it, or counts them.
func TestOneRunNamesItsSpecsSubjects(t *testing.T) {
	named := func(subjects ...string) []verdict.Spec {
		var specs []verdict.Spec
		for _, s := range subjects {
			specs = append(specs, verdict.Spec{Subject: s})
		}
		return specs
	}
	for _, c := range []struct {
		specs []verdict.Spec
		want  string
	}{
		{named("workload (correct)", "workload (correct)", "", "leader (ignore-lost-lease)"), "workload (correct), leader (ignore-lost-lease)"},
		{named("workload (correct)", "leader (correct)", "composite (correct)", "cluster (correct)"), "workload, leader, composite, cluster (correct)"},
		{named("a (correct)", "b (correct)", "c (correct)", "d (subject file)"), "4 subjects"},
		{named("", ""), ""},
	} {
		if got := specSubjects(c.specs); got != c.want {
			t.Errorf("specSubjects = %q, want %q", got, c.want)
		}
	}
}

// A matrix.json that does not read is named, never taken for no matrix.
func TestUnreadableMatrixIsNamed(t *testing.T) {
	dir := copyRun(t, "../testdata/leader-run")
	if err := os.WriteFile(filepath.Join(dir, MatrixFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(new(bytes.Buffer), "x", dir)
	if err == nil || !strings.Contains(err.Error(), "is not a matrix's matrix.json") {
		t.Errorf("got %v", err)
	}
}

// copyRun copies the run folder src to a temporary folder.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// editMatrix applies edit to the one cell of dir's matrix.json.
func editMatrix(t *testing.T, dir string, edit func(*reports.Cell)) {
	t.Helper()
	cells, err := readMatrix(dir)
	if err != nil || len(cells) != 1 {
		t.Fatalf("%v, %d cells", err, len(cells))
	}
	edit(&cells[0])
	data, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MatrixFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
