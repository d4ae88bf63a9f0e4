package verdict

import (
	"encoding/json"

	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// UnmarshalJSON reads a record, its property id under its current name
// (renamed.CurrentID): evidence and reports written before a rename read
// as if written today.
func (r *Record) UnmarshalJSON(data []byte) error {
	type plain Record // without this method
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.ID = renamed.CurrentID(r.ID)
	return nil
}
