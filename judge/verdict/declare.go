package verdict

import (
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// DeclarationPrefix begins the Ginkgo label by which a spec declares a
// property it must judge. A label may not hold a slash, so the id's
// slash is a colon: leader/failover-in-time is declared by the label
// "judges:leader:failover-in-time" (and `--label-filter 'judges:
// containsAny leader:failover-in-time'` selects the specs that judge it).
const DeclarationPrefix = "judges:"

// Declaration is the Ginkgo label declaring that a spec judges the
// property with this id.
func Declaration(id string) string {
	return DeclarationPrefix + strings.Replace(id, "/", ":", 1)
}

// Declarations are the labels declaring each of ps.
func Declarations(ps ...Property) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Declaration(p.ID)
	}
	return out
}

// Declared reads the ids of the properties a spec declares from its
// labels (types.SpecReport.Labels()), in order, each once, under their
// suites' current names (renamed.CurrentID).
func Declared(labels []string) []string {
	var ids []string
	for _, l := range labels {
		rest, ok := strings.CutPrefix(l, DeclarationPrefix)
		if !ok || rest == "" {
			continue
		}
		id := renamed.CurrentID(strings.Replace(rest, ":", "/", 1))
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
