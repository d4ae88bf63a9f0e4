package main

import (
	"fmt"
	"io"
	"os"

	"github.com/steadystate-dev/steadystate/rejudge"
)

// validateCommand re-judges, with no cluster, every property of every
// evidence.json below a folder that can be judged from evidence alone, and
// fails when a verdict differs from the one the run recorded.
func validateCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: validate takes one folder (a run's artifacts, or one spec's)", errUsage)
	}
	dir := args[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder: give the artifacts folder of a run (e.g. _artifacts) or of one failing spec", dir)
	}
	return rejudge.Dir(dir, stdout)
}
