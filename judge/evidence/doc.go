// Package evidence is what one spec recorded, kept so that its properties
// can be judged again without a cluster: every recorded history (by a name
// unique in the spec), every replica's proxy log, other logs the scenario
// read (the external system's operations), the scenario's facts (which
// object, which field paths, which moments) and the records the run
// produced. A failing spec writes it as evidence.json next to history.txt;
// `steadystate validate` and the tests under testdata re-judge it.
package evidence
