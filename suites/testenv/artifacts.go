package testenv

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// SpecArtifacts is the folder a failing spec's artifacts go to:
// $ARTIFACTS/<spec text>/ (ARTIFACTS defaults to _artifacts).
func SpecArtifacts() string {
	return filepath.Join(artifactsRoot(), ArtifactsFolder(CurrentSpecReport().FullText()))
}

// ArtifactsFolder is the folder, under the run's artifacts, of the spec
// whose full text is spec (evidence.SpecFolder).
func ArtifactsFolder(spec string) string { return evidence.SpecFolder(spec) }

// artifactsRoot is the run's artifacts root.
func artifactsRoot() string { return Run().Artifacts }

// keepOnFailure writes what read returns (or its error) as name when the
// current spec fails.
func keepOnFailure(name string, read func() ([]byte, error)) {
	DeferCleanup(func() {
		if !CurrentSpecReport().Failed() {
			return
		}
		b, err := read()
		if err != nil {
			b = []byte(err.Error())
		}
		write(name, b)
	})
}

func write(name string, data []byte) {
	dir := SpecArtifacts()
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "keep %s: %v\n", name, err)
	}
}
