// Package rejudge judges a run's verdicts again, with no cluster, from the
// evidence its specs kept: every evidence.json below a folder (Dir, for
// steadystate validate), or every verdict of a conformance bundle once its
// sums and manifest are checked (Bundle, for steadystate verify). A verdict
// that differs from the one the run recorded fails it.
package rejudge
