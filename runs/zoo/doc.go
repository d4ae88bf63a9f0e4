// Package zoo runs the zoo: `steadystate conform` over every subject file
// of fixtures/zoo (real controllers nobody here wrote), each a number of
// times, each run in its own artifacts folder with its own cluster, checks
// each run's bundle with `steadystate verify`, and prints the matrix: per
// subject and suite the verdict of every run, per spec its times, and the
// wall time. `steadystate zoo` is its command (Command): `make zoo`,
// `make hunt` and `make zoo-repro` run it.
package zoo
