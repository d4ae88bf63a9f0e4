package upstream

import (
	"fmt"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// binding is what of a subject file a property is judged on beyond its
// suite's capability: without it the suite records the property as not
// judged, so no cell may expect it to break.
type binding struct {
	// field names it, for messages.
	field string
	bound func(subjectfile.Capabilities) bool
}

// bindings are the properties a suite judges only with more than its
// capability bound.
var bindings = map[string]binding{
	catalog.FgBlockerNamed.ID: {"capabilities.foregroundComposite.blockerMessage", func(c subjectfile.Capabilities) bool {
		return c.ForegroundComposite != nil && c.ForegroundComposite.BlockerMessage != ""
	}},
	catalog.FinP4.ID: {"capabilities.movableResource.sideEffects", func(c subjectfile.Capabilities) bool {
		return c.MovableResource != nil && c.MovableResource.SideEffects != nil
	}},
	// The same-name race needs an external system whose names the
	// harness controls; a subject file binds none (the spec skips).
	catalog.FgSuccessorReady.ID: {"an external system the harness controls (subject files bind none)", func(subjectfile.Capabilities) bool { return false }},
	catalog.FgNoDeleteInUse.ID:  {"an external system the harness controls (subject files bind none)", func(subjectfile.Capabilities) bool { return false }},
}

// Unbound says what f lacks for a run against it to judge property id:
// its suite's capability, or a binding beyond it; "" when f binds all
// the property needs.
func Unbound(f *subjectfile.File, id string) string {
	suite, _, _ := strings.Cut(id, "/")
	i := slices.IndexFunc(catalog.Suites, func(s catalog.Suite) bool { return s.Name == suite })
	if i < 0 {
		return fmt.Sprintf("a suite %q (no suite of the catalog judges %s)", suite, id)
	}
	if capability := catalog.Suites[i].Capability; !slices.Contains(f.Capabilities.Bound(), capability) {
		return "capabilities." + capability
	}
	if b, ok := bindings[id]; ok && !b.bound(f.Capabilities) {
		return b.field
	}
	return ""
}

// Expected narrows what a bug breaks to the properties f binds: a
// property whose binding f lacks is not judged, so it cannot break. The
// second result lists the others, each with what f lacks.
func Expected(f *subjectfile.File, breaks []string) (expected, unbound []string) {
	for _, id := range breaks {
		if missing := Unbound(f, id); missing != "" {
			unbound = append(unbound, id+" (no "+missing+")")
			continue
		}
		expected = append(expected, id)
	}
	return expected, unbound
}
