package explore

import (
	"slices"
	"testing"
	"time"
)

// Processes side by side draw as many schedules each as one alone.
func TestDeclaredSchedules(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want int
	}{
		{Config{Budget: 5 * time.Minute}, 61},
		{Config{Budget: 5 * time.Minute, Shards: 1}, 61},
		{Config{Budget: 5 * time.Minute, Shards: 3}, 183},
		{Config{Budget: 100 * time.Hour, Shards: 2}, 2 * mostSpecs},
	} {
		if got := declared(tc.c); got != tc.want {
			t.Errorf("%+v: %d schedules, want %d", tc.c, got, tc.want)
		}
	}
}

// A replay's runs sort by name in the order they ran.
func TestReplaySpecsSortInRunOrder(t *testing.T) {
	var names []string
	for i := range 12 {
		names = append(names, replaySpec("/kept/schedule.yaml", i, 12))
	}
	if !slices.IsSorted(names) {
		t.Errorf("replay specs do not sort in run order: %q", names)
	}
	if got, want := names[1], "replays schedule.yaml (run 02 of 12)"; got != want {
		t.Errorf("run 2 of 12 is %q, want %q", got, want)
	}
	if got, want := replaySpec("s.yaml", 0, 1), "replays s.yaml (run 1 of 1)"; got != want {
		t.Errorf("run 1 of 1 is %q, want %q", got, want)
	}
}
