// Package kindtest starts the kind clusters the harness's own tests
// run on (make job-test, make chaosmesh-kind-test), and deletes them when
// the test ends.
package kindtest
