// Package schedule is exploration's unit of work: a fault schedule drawn at
// random from a seed, for one capability of a subject, that can be written
// to a file, read back (strictly: a bad file is named by line, with the
// valid values), replayed and shrunk.
//
// A schedule is a list of steps. Each step is a fault from the vocabulary
// (Faults: every proxy rule, pod deletions, process faults, leader
// failover, concurrent creates, etcd compaction) or a workload step the
// capability offers (Workloads: scale up and down, create and delete
// claims, moves, deleting an object another party's finalizer holds, and
// applying a steady-state binding's next change),
// placed either on the clock (at, from the schedule's
// start) or right after the subject's next request of a kind (after:
// "the next create of a pod"), where races live. Faults overlap freely. A
// fault that is held (watch-stall, the answers, partitions, dropped or
// delayed events) names for how long, and delayed events how late: one
// held for no time would do nothing, so a schedule without is refused.
//
// Generate draws a schedule from a seed, so the seed replays it; Shrink
// reduces a schedule that breaks a property to a smallest one that still
// breaks it (the empty schedule first, then delta debugging over its
// steps, then over when each step starts), counting the replays it took
// and keeping the path of schedules it kept on the way, so that a caller
// can step back from a smaller one that broke by luck of a race.
package schedule
