package reports

import (
	"os"
	"strings"
	"testing"
)

// The README's tables are generated from the catalog (steadystate catalog);
// this fails when they drift apart.
func TestREADMEHasTheCatalog(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	WriteCatalog(&want)
	const begin, end = "<!-- catalog: begin (steadystate catalog) -->\n", "<!-- catalog: end -->"
	_, rest, ok := strings.Cut(string(readme), begin)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("README.md has no %q ... %q section", begin, end)
	}
	if got != want.String() {
		t.Errorf("README.md's catalog section is stale: replace it with the output of `go run ./cmd/steadystate catalog`:\n%s", want.String())
	}
}
