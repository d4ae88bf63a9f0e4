package explore

import (
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
