package verdict

import (
	"encoding/json"
	"strings"
)

// Former names. The reconcile suite (any controller, judged against its
// own fault-free reference runs) was called steadystate, like the
// module, and the capability it runs on steadyState, until 2026-12-01.
// Everything written since names them reconcile and reconciledObjects;
// what was written before (evidence, reports, kept schedules, subject
// files) is read with the current names: a record or declaration read
// back, and each reader of a name a person types, goes through these.
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

// UnmarshalJSON reads a record, its property id under its current name.
func (r *Record) UnmarshalJSON(data []byte) error {
	type plain Record // without this method
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.ID = CurrentID(r.ID)
	return nil
}
