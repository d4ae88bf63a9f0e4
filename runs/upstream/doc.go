// Package upstream is the catalog of real upstream releases the suites are
// proven against: for each seeded bug, the release that has it and the
// release (or the setting) that fixed it, how each is built from the Go
// module proxy, and the cells that run them through subject files
// (fixtures/upstream). Nothing here emulates upstream code: a release is
// built from its own module at its pinned version.
package upstream
