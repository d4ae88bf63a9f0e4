package heartbeat

import (
	"testing"
	"testing/synctest"
	"time"
)

// It beats once per interval until stopped, and never after stop returns.
func TestEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		beats := 0
		stop := Every(30*time.Second, func() { beats++ })
		time.Sleep(95 * time.Second) // the bubble's fake clock: no real wait
		synctest.Wait()
		stop()
		if beats != 3 {
			t.Errorf("%d beats in 95s at 30s, want 3", beats)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if beats != 3 {
			t.Errorf("%d beats after stop, want none", beats-3)
		}
	})
}
