package html

import "html/template"

// timelineCSS styles a timeline (Timeline, TimelineSVG): in the page and
// inside a standalone SVG.
const timelineCSS = `svg.timeline { border: 1px solid #ddd; background: #fff; max-width: 100%; height: auto; }
svg .label { font-size: 11px; fill: #333; }
svg .axis { font-size: 10px; fill: #777; }
svg .grid { stroke: #eee; }
svg .fault { fill: #7e57c2; opacity: .35; }
svg .fault.failed { fill: #b00020; }
svg .ev { fill: #607d8b; }
svg .ev.added { fill: #2e7d32; }
svg .ev.deleted { fill: #c62828; }
svg .ev.dropped { fill: #ef6c00; }
svg .req.ok { fill: #90a4ae; }
svg .req.c4 { fill: #ef6c00; }
svg .req.c5 { fill: #c62828; }
svg .req.faulted { fill: #7e57c2; }
svg .holder { opacity: .55; }
svg .h0 { fill: #1e88e5; } svg .h1 { fill: #43a047; } svg .h2 { fill: #fdd835; }
svg .h3 { fill: #8e24aa; } svg .h4 { fill: #00acc1; } svg .h5 { fill: #f4511e; }
svg .broken-marker line { stroke: #d50000; stroke-width: 2; }
svg .broken-marker text { font-size: 11px; fill: #d50000; font-weight: bold; }
svg .broken-marker text.request { font-weight: normal; }
svg .req.offending { fill: #d50000; stroke: #d50000; stroke-width: 2; }
svg .band-name { font-size: 11px; fill: #111; }
svg .tick { stroke: #999; }
`

// page is the report: styles inline, no script, nothing fetched.
var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
tr.broken td.outcome { color: #b00020; font-weight: bold; }
tr.error td.outcome { color: #b35c00; font-weight: bold; }
tr.passed td.outcome { color: #1b5e20; }
tr.skipped td.outcome { color: #666; }
td.figures { font-size: 12px; color: #555; }
td.notjudged { color: #8d6e00; }
section.failing { margin-top: 2em; }
` + timelineCSS + `div.zoom p.span { color: #555; font-size: 12px; margin: .3em 0; }
details.whole summary { cursor: pointer; color: #1565c0; margin: .5em 0; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Written {{.Generated}}. A spec is <b>broken</b> when it broke a named property (a finding), <b>error</b> when the harness or the subject's set-up failed (never a finding). A property is <b>not bound</b> when the subject's binding gives no means to judge it: never a pass.</p>
{{if .Result}}<p class="result">Result: <b>{{.Result}}</b>{{if .ResultDetail}} — {{.ResultDetail}}{{end}}</p>
{{end}}<p class="judged">{{.Judged}}{{if .NotJudged}}; {{.NotJudged}}{{end}}.</p>
<table>
<thead><tr><th>cell</th><th>suite</th><th>spec</th><th>outcome (runs)</th><th>broken properties</th><th>not judged</th><th>figures</th><th>median</th><th>timelines</th></tr></thead>
<tbody>
{{range .Rows}}<tr class="{{.Class}}"><td>{{.Cell}}</td><td>{{.Suite}}</td><td>{{.Spec}}</td><td class="outcome">{{.Outcomes}}</td><td>{{.Broken}}</td><td class="notjudged">{{.NotJudged}}</td><td class="figures">{{.Figures}}</td><td>{{.Median}}</td><td>{{range .Links}}<a href="{{.Href}}">{{.Text}}</a> {{end}}</td></tr>
{{end}}</tbody>
</table>
{{range .Failing}}
<section class="failing" id="{{.ID}}">
<h2>{{.Title}}</h2>
<p>{{.Reason}} — evidence: <a href="{{.Evidence}}">{{.Evidence}}</a> (history.txt beside it)</p>
{{if .Timeline}}{{.Timeline}}{{else}}<p>The evidence could not be read.</p>{{end}}
</section>
{{end}}
</body>
</html>
`))
