// Package subject starts the controller under test for the suites. Today
// the subjects are steadystate's reference controllers (refctl), run as
// local processes, one fault proxy per replica; SUBJECT_BUG picks a seeded
// bug (empty: the correct mode), routed to the component it belongs to.
package subject
