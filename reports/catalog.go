package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/catalog"
)

// WriteCatalog writes the catalog as the README's Markdown: the self-test
// matrix (what each cell must do) and every property with its id.
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
	fmt.Fprintln(w, "| property | stage | guarantee |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, p := range catalog.Properties {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", p.ID, p.Stage, p.Sentence)
	}
}
