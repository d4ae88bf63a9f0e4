package main

import (
	"cmp"
	"strconv"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/matrix"
)

// matrixFlags are a matrix command's --repeat and --parallel, whose
// defaults are <prefix>_REPEAT and <prefix>_PARALLEL.
type matrixFlags struct {
	cfg              config.Settings
	prefix           string
	repeat, parallel string
}

// addMatrixFlags adds --repeat and --parallel to c; parallel is the
// default when <prefix>_PARALLEL is not set.
func addMatrixFlags(c cli.Command, cfg config.Settings, prefix string, parallel int) *matrixFlags {
	me := cfg.Matrix[prefix]
	f := &matrixFlags{cfg: cfg, prefix: prefix, repeat: cmp.Or(me.Repeat, "1"), parallel: cmp.Or(me.Parallel, strconv.Itoa(parallel))}
	c.FS.StringVar(&f.repeat, "repeat", f.repeat, "run each cell `N` times ("+prefix+"_REPEAT)")
	c.FS.StringVar(&f.parallel, "parallel", f.parallel, "run `N` cells at a time, each with its own cluster ("+prefix+"_PARALLEL)")
	return f
}

// matrixRun is the run the flags of c set up (see matrix.New).
func (f *matrixFlags) matrixRun(c cli.Command, name, title string) (matrix.Run, error) {
	m, err := matrix.New(f.cfg, name, title, "", 1)
	if err != nil {
		return m, err
	}
	if m.Repeat, err = matrix.Positive(c.Source("repeat", f.prefix+"_REPEAT"), f.repeat); err != nil {
		return m, err
	}
	m.Parallel, err = matrix.Positive(c.Source("parallel", f.prefix+"_PARALLEL"), f.parallel)
	return m, err
}
