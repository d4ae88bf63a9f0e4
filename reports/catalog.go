package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/splice"
	"github.com/steadystate-dev/steadystate/judge/catalog"
)

// PropertiesPage is the page that holds the catalog's tables, relative to the
// repository's root; CatalogBegin and CatalogEnd mark the generated block in
// it. `make docs` rewrites the block and a test fails when it drifts.
const (
	PropertiesPage = "docs/properties.md"
	CatalogBegin   = "<!-- catalog: begin (steadystate catalog; make docs) -->\n"
	CatalogEnd     = "<!-- catalog: end -->"
)

// WriteCatalog writes the catalog as Markdown: the self-test matrix (what
// each cell must do) and every property with its id, suite, stage, sentence
// and the seeded bugs that must break it.
func WriteCatalog(w io.Writer) {
	fmt.Fprintln(w, "| suite | subject | mode | must | origin |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range Cells() {
		if c.Bug == nil {
			fmt.Fprintf(w, "| %s | %s | correct | pass: every spec ran and every property held | |\n", c.Suite, c.Subject)
			continue
		}
		ids := make([]string, len(c.Bug.Breaks))
		for i, id := range c.Bug.Breaks {
			ids[i] = "`" + id + "`"
		}
		fmt.Fprintf(w, "| %s | %s | %s | break exactly %s | %s |\n", c.Suite, c.Subject, c.Bug.Name, strings.Join(ids, " and "), c.Bug.Origin)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| property | suite | stage | guarantee | seeded bugs that break it |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, p := range catalog.Properties {
		var by []string
		for _, b := range catalog.Bugs {
			if slices.Contains(b.Breaks, p.ID) {
				by = append(by, "`"+b.Name+"`")
			}
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", p.ID, p.Suite(), p.Stage, p.Sentence, strings.Join(by, ", "))
	}
}

// SpliceCatalog returns page with the block between CatalogBegin and
// CatalogEnd replaced by the catalog's current tables.
func SpliceCatalog(page []byte) ([]byte, error) {
	var tables strings.Builder
	WriteCatalog(&tables)
	return splice.Between(page, CatalogBegin, CatalogEnd, tables.String())
}
