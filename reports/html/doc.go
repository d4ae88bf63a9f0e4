// Package html writes a run's report as one self-contained HTML page (no
// script, no network): a table of every spec across the run's reports
// (outcome over repeats, broken properties, figures, durations, links to
// the kept artifacts), and for every spec that did not pass and kept its
// evidence a timeline: faults as bands, each recorded history's changes,
// the Lease holder over time, each replica's requests and events, and the
// moment each property broke, marked.
package html
