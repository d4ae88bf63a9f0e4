// Package renamed holds the names the project used before it renamed
// them, and maps each to its current name. Whatever reads a name a person
// typed or an earlier release wrote (a property id in evidence or a
// report, a suite or capability named in a subject file, a kept schedule
// or a command's flag) goes through it, so old names keep working.
//
// The reconcile suite (any controller, judged against its own fault-free
// reference runs) was called steadystate, like the module, and the
// capability it runs on steadyState, until 2026-12-01. Everything written
// since names them reconcile and reconciledObjects.
package renamed

import "strings"

// The former names and the current ones.
const (
	FormerSuite         = "steadystate"
	ReconcileSuite      = "reconcile"
	FormerCapability    = "steadyState"
	ReconcileCapability = "reconciledObjects"
)

// CurrentID is a property id under its suite's current name:
// "steadystate/settles" is "reconcile/settles"; any other id is itself.
func CurrentID(id string) string {
	if name, ok := strings.CutPrefix(id, FormerSuite+"/"); ok {
		return ReconcileSuite + "/" + name
	}
	return id
}

// CurrentSuite is a suite's current name: FormerSuite is ReconcileSuite.
func CurrentSuite(name string) string {
	if name == FormerSuite {
		return ReconcileSuite
	}
	return name
}

// CurrentCapability is a capability's current name: FormerCapability is
// ReconcileCapability.
func CurrentCapability(name string) string {
	if name == FormerCapability {
		return ReconcileCapability
	}
	return name
}
