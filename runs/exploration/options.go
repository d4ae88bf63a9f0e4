package exploration

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/internal/cli"
)

// SetOptions checks the run's replay options and sets its defaults, its
// budget (a duration such as 10m) and its seed (from the clock when
// seed is empty): a --shrink needs a --replay; a replay runs once, and
// after a shrink ten times, unless Repeat says otherwise.
func (c *Run) SetOptions(budget, seed string) error {
	switch {
	case c.Repeat < 0:
		return fmt.Errorf("--repeat %d: a replay runs at least once", c.Repeat)
	case c.Confirm < 1:
		return fmt.Errorf("--confirm %d: a shrink candidate is replayed at least once", c.Confirm)
	case c.Pattern != "" && !slices.Contains(schedule.Patterns, c.Pattern):
		return fmt.Errorf("--pattern %q is not a pattern: use one of %s", c.Pattern, strings.Join(schedule.Patterns, ", "))
	case c.Pattern != "" && c.Replay != "":
		return fmt.Errorf("%w: --pattern draws schedules; a replay runs the one in its file: drop --pattern", cli.ErrUsage)
	case c.Shrink && c.Replay == "":
		return fmt.Errorf("%w: --shrink reduces a kept schedule: give it with --replay FILE", cli.ErrUsage)
	case c.Repeat == 0 && c.Shrink:
		c.Repeat = 10
	case c.Repeat == 0:
		c.Repeat = 1
	}
	var err error
	if c.Budget, err = time.ParseDuration(budget); err != nil || c.Budget <= 0 {
		return fmt.Errorf("--budget %q is not a duration: use one such as 10m or 90s", budget)
	}
	c.Seed = uint64(time.Now().UnixNano())
	if seed != "" {
		if c.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return fmt.Errorf("--seed %q is not a seed: use the number a previous run printed", seed)
		}
	}
	return nil
}
