package html

import (
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TimelineSVG is one spec's evidence as a standalone SVG file: the
// timeline the report page opens on (Timeline: the faults and where each
// of records broke, with a margin; the whole run when that is most of
// it), with the page's timeline styles inside, so that a document can
// show it as an image.
func TimelineSVG(e *evidence.Evidence, records []verdict.Record) string {
	end := e.End
	if !end.After(e.Start) {
		end = e.Start.Add(time.Second)
	}
	marks := markers(e, records)
	from, to, ok := focus(e, marks, end)
	if !ok {
		from, to = e.Start, end
	}
	svg := draw(e, marks, end, from, to)
	i := strings.Index(svg, ">") + 1
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + svg[:i] + "<style>\n" + timelineCSS + "</style>" + svg[i:] + "\n"
}
