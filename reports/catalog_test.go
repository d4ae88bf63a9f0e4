package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the generated block of the properties page instead of
// checking it (`make docs`).
var update = flag.Bool("update", false, "rewrite the catalog's tables in "+PropertiesPage)

// The properties page's tables are generated from the catalog; this fails
// when they drift apart, and with -update (make docs) rewrites them.
func TestPropertiesPageHasTheCatalog(t *testing.T) {
	path := filepath.Join("..", PropertiesPage)
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SpliceCatalog(page)
	if err != nil {
		t.Fatalf("%s: %v", PropertiesPage, err)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(page, want) {
		t.Errorf("%s's catalog tables are stale: run `make docs` to regenerate them", PropertiesPage)
	}
}

func TestSpliceCatalog(t *testing.T) {
	var tables strings.Builder
	WriteCatalog(&tables)
	page := "# intro\n\n" + CatalogBegin + "| stale | table |\n" + CatalogEnd + "\n\nafter\n"
	got, err := SpliceCatalog([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# intro\n\n" + CatalogBegin + tables.String() + CatalogEnd + "\n\nafter\n"; string(got) != want {
		t.Errorf("spliced page:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(tables.String(), "| `lostevents/no-overshoot` | lostevents | invariant |") ||
		!strings.Contains(tables.String(), "`no-expectations`") {
		t.Errorf("the property table does not give the suite, stage and the seeded bugs that break a property:\n%s", tables.String())
	}
	for _, bad := range []string{"no markers\n", CatalogBegin + "no end\n"} {
		if _, err := SpliceCatalog([]byte(bad)); err == nil {
			t.Errorf("SpliceCatalog(%q): no error", bad)
		}
	}
}
