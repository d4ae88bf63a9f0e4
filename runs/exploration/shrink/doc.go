// Package shrink is exploration's shrink policy: how a kept schedule that
// breaks properties is reduced to a smallest one that still breaks them,
// and which of the schedules the reduction kept is the result.
//
// schedule.Shrink walks the candidates; this package says when a
// candidate counts (it breaks exactly the wanted properties, again in
// every confirming replay, and, against a seeded bug, the subject's
// correct mode holds on it: discrimination) and, once the reduction ends,
// walks its path back from the smallest schedule to the first one that
// broke the properties in every replay. The replays themselves are the
// caller's (a Replay runs the exploration suite in a run of its own).
package shrink
