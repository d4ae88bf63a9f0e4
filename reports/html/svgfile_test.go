package html

import (
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// TestTimelineSVGStandsAlone: the standalone timeline is one SVG document
// with the timeline's styles inside and the same marks the page draws.
func TestTimelineSVGStandsAlone(t *testing.T) {
	e, err := evidence.Read("../../judge/testdata/explore-deployment-steady-stuck-rollout.json")
	if err != nil {
		t.Fatal(err)
	}
	got := TimelineSVG(e, e.Records)
	if !strings.HasPrefix(got, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<svg class="timeline" xmlns="http://www.w3.org/2000/svg"`) ||
		strings.Count(got, "<svg") != 1 || !strings.HasSuffix(got, "</svg>\n") {
		t.Fatalf("not one SVG document:\n%.300s", got)
	}
	if !strings.Contains(got, "<style>\n"+timelineCSS+"</style>") {
		t.Error("the timeline's styles are not inside the SVG")
	}
	page := string(Timeline(e, e.Records))
	if !strings.Contains(got, "broken-marker") || !strings.Contains(page, got[strings.Index(got, "</style>")+len("</style>"):len(got)-len("</svg>\n")]) {
		t.Error("the standalone timeline does not draw what the page's opens on")
	}
}
