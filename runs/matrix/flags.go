package matrix

import (
	"cmp"
	"strconv"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// Flags are a matrix command's --repeat and --parallel, whose defaults
// are <prefix>_REPEAT and <prefix>_PARALLEL.
type Flags struct {
	cfg              config.Settings
	prefix           string
	repeat, parallel string
}

// AddFlags adds --repeat and --parallel to c; parallel is the default
// when <prefix>_PARALLEL is not set.
func AddFlags(c cli.Command, cfg config.Settings, prefix string, parallel int) *Flags {
	me := cfg.Matrix[prefix]
	f := &Flags{cfg: cfg, prefix: prefix, repeat: cmp.Or(me.Repeat, "1"), parallel: cmp.Or(me.Parallel, strconv.Itoa(parallel))}
	c.FS.StringVar(&f.repeat, "repeat", f.repeat, "run each cell `N` times ("+prefix+"_REPEAT)")
	c.FS.StringVar(&f.parallel, "parallel", f.parallel, "run `N` cells at a time, each with its own cluster ("+prefix+"_PARALLEL)")
	return f
}

// Run is the run named name the parsed flags of c set up (see New).
func (f *Flags) Run(c cli.Command, name, title string) (Run, error) {
	m, err := New(f.cfg, name, title, "", 1)
	if err != nil {
		return m, err
	}
	if m.Repeat, err = Positive(c.Source("repeat", f.prefix+"_REPEAT"), f.repeat); err != nil {
		return m, err
	}
	m.Parallel, err = Positive(c.Source("parallel", f.prefix+"_PARALLEL"), f.parallel)
	return m, err
}
