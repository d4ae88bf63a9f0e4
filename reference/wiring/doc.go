// Package wiring builds a controller-runtime manager from the flags every
// reference controller shares: kubeconfig, identity, leader election
// (durations and release-on-cancel), health and metrics endpoints, and the
// --bug switch that turns on exactly one seeded bug (valid bugs come from
// the catalog package).
package wiring
