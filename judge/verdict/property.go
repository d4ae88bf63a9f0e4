package verdict

import (
	"fmt"
	"strings"
)

// Stage orders the checks of a scenario: assumptions first (did the fault
// happen, was the subject healthy before it, is the evidence complete),
// then convergence, then invariants over the whole history.
type Stage string

// The stages, in the order they are evaluated.
const (
	Assumption  Stage = "assumption"
	Convergence Stage = "convergence"
	Invariant   Stage = "invariant"
)

// Property is one guarantee a suite checks: a stable id that self-test
// expectations and reports refer to, and the guarantee in words.
type Property struct {
	// ID is stable across runs and releases: "<suite>/<name>".
	ID string `json:"id"`
	// Stage is where the property is checked.
	Stage Stage `json:"stage"`
	// Sentence states the guarantee.
	Sentence string `json:"sentence"`
}

// Suite is the part of the id before the slash.
func (p Property) Suite() string {
	suite, _, ok := strings.Cut(p.ID, "/")
	if !ok {
		return ""
	}
	return suite
}

func (p Property) String() string { return fmt.Sprintf("%s %s: %s", p.Stage, p.ID, p.Sentence) }
