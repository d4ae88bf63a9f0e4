// Package standing keeps a local cluster standing for a person debugging
// by hand: Up starts one and keeps it up until its context ends (Ctrl-C,
// or Down from another process), recording its state in a file named for
// the cluster, by which Down and Status find it. A state file whose
// process is gone is stale and removed; Down never signals a process that
// is not a steadystate one.
package standing
