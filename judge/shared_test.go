package judge

import (
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// The judges of one evidence share each rebuilt history
// (evidence.History rebuilds it once): none may change it. Every judge
// and every bound figure, run on every saved evidence, leaves each
// history as a fresh rebuild of the same file has it.
func TestJudgesLeaveSharedHistoriesUnchanged(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no saved evidence: %v", err)
	}
	read := func(path string) *evidence.Evidence {
		e, err := evidence.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, f := range files {
		t.Run(filepath.ToSlash(f), func(t *testing.T) {
			judged, fresh := read(f), read(f)
			for _, id := range slices.Sorted(maps.Keys(Offline)) {
				_ = Offline[id](judged)
				_ = BoundText(id, judged)
			}
			for _, name := range slices.Sorted(maps.Keys(fresh.Histories)) {
				got, _ := judged.History(name)
				want, _ := fresh.History(name)
				if !reflect.DeepEqual(got.Events(), want.Events()) {
					t.Errorf("history %q: a judge changed it", name)
				}
			}
		})
	}
}
