// Package chaos injects the faults that break real controllers: watch cuts,
// stalls and forced relists, dropped and delayed events, partitions and
// error responses (through the fault proxy, package proxy), etcd compaction
// (the real 410 path), pod deletions, process kills and restarts, leader
// failovers, and concurrent creates.
//
// Every fault is a small value behind one interface (Fault): it says whether
// it can act on a target and why not, injects, and recovers. Inject and
// Begin refuse an unavailable fault before touching anything, always
// recover (on success, failure, panic and cancellation), and put each
// injection on a Timeline shared with the suites and reports. Exploratory
// runs draw their faults as schedules (package schedule, run by package
// suites/explore); the seed replays a run.
//
// A replica's Host is what process faults act on, wherever it runs: a
// local process (ProcessHost: signals, restart in place) or a pod
// (PodHost: deletion with or without grace), so faults and suites never
// ask which.
package chaos
