// Package matrix runs the cells of a matrix (the self-test's, the upstream
// one's, a conformance run's, an exploration's): each cell's suite in a
// child process of the steadystate program, in a fresh folder of its own
// with its own cluster, judged from the report the child writes. It prints
// the suites' progress as it happens, the matrix and its figures when the
// runs end, and keeps the matrix as matrix.json beside a report page.
package matrix
