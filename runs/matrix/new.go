package matrix

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/steadystate-dev/steadystate/internal/config"
)

// New is a matrix's run of the settings e: <prefix>_REPEAT
// (default 1) and <prefix>_PARALLEL (default parallel), PROVIDER, and
// ARTIFACTS (the runs go below ARTIFACTS/<name>). With no prefix, no
// variable sets the repeat or the parallel (a run that has flags of
// its own for them).
func New(e config.Settings, name, title, prefix string, parallel int) (Run, error) {
	m := Run{Name: name, Title: title, Repeat: 1, Parallel: parallel, Provider: e.Provider}
	var err error
	if v := e.Matrix[prefix].Repeat; v != "" {
		if m.Repeat, err = Positive(prefix+"_REPEAT", v); err != nil {
			return m, err
		}
	}
	if v := e.Matrix[prefix].Parallel; v != "" {
		if m.Parallel, err = Positive(prefix+"_PARALLEL", v); err != nil {
			return m, err
		}
	}
	m.Root, err = filepath.Abs(filepath.Join(e.Artifacts, name))
	return m, err
}

// Positive reads a count of at least 1 given as value by source (a
// variable, or a flag).
func Positive(source, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q is not a positive number", source, value)
	}
	return n, nil
}
