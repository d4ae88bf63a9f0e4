package explore

import (
	"flag"
	"time"

	"github.com/steadystate-dev/steadystate/suites/subject"
)

// Title is the suite's name in reports.
const Title = "Exploration"

// Config is one exploration run, read once from the suite's flags.
type Config struct {
	// Capability is the subject capability the schedules exercise.
	Capability string
	// Seed draws the run's schedules: schedule i's seed is drawn from it.
	Seed uint64
	// Budget is how long the run may start new schedules.
	Budget time.Duration
	// Replay is a schedule file to run instead of drawn ones, Repeat
	// times.
	Replay string
	Repeat int
	// First stops the run at its first finding.
	First bool
	// Shards is how many suite processes share the run's drawn
	// schedules, each with a cluster of its own; this one runs
	// schedule i when i mod Shards is Shard (from 0): the run's
	// schedules are the same however many share them.
	Shard, Shards int
	// Pattern draws every schedule in that one of schedule.Patterns; ""
	// the mix of Sieve's three.
	Pattern string
	// SharedReferences is a folder the Shards processes of a reconciledObjects
	// run share their fault-free reference runs through: each makes at
	// most one (shared.go). "": this process makes them all.
	SharedReferences string
}

// sharesReferences says this process shares the run's reference runs
// with others: drawn schedules, several processes, a folder to share
// them through.
func (c Config) sharesReferences() bool {
	return c.SharedReferences != "" && c.Replay == "" && c.Shards > 1
}

// makesReference says this process makes reference run i: all of them
// alone, run i when i mod Shards is its Shard when it shares them.
func (c Config) makesReference(i int) bool {
	return !c.sharesReferences() || i%c.Shards == c.Shard
}

// Flags adds the suite's flags to fs and returns its Register, which
// declares the specs of the configuration the flags give.
func Flags(fs *flag.FlagSet) func() {
	c := &Config{}
	fs.StringVar(&c.Capability, "steadystate.explore.capability", "", "the capability the schedules exercise: scalableWorkload, leaderElected, foregroundComposite, movableResource or reconciledObjects")
	fs.Uint64Var(&c.Seed, "steadystate.explore.seed", 1, "the seed the run's schedules are drawn from")
	fs.DurationVar(&c.Budget, "steadystate.explore.budget", 10*time.Minute, "how long new schedules may start")
	fs.StringVar(&c.Replay, "steadystate.explore.replay", "", "a schedule file to run instead of drawn schedules")
	fs.IntVar(&c.Repeat, "steadystate.explore.repeat", 1, "how many times to run the replayed schedule")
	fs.BoolVar(&c.First, "steadystate.explore.first", false, "stop at the first finding")
	fs.IntVar(&c.Shard, "steadystate.explore.shard", 0, "which share of the drawn schedules this process runs, from 0 (of -steadystate.explore.shards)")
	fs.IntVar(&c.Shards, "steadystate.explore.shards", 1, "how many processes share the drawn schedules")
	fs.StringVar(&c.Pattern, "steadystate.explore.pattern", "", "draw every schedule in this pattern (unobserved, crash, any, refused-once); empty: the mix of the first three")
	fs.StringVar(&c.SharedReferences, "steadystate.explore.shared-references", "", "a folder the processes of one run (-steadystate.explore.shards) share their fault-free reference runs through, each making at most one; empty: this process makes them all")
	return func() { Register(*c) }
}

// Register declares the suite for c: the cluster lifecycle, then one spec
// per schedule.
func Register(c Config) {
	subject.Lifecycle()
	specs(c)
}
