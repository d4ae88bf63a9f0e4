package kind

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRetryDelete(t *testing.T) {
	busy := errors.New(`command "docker rm -f -v x-control-plane" failed with error: exit status 1`)
	calls := 0
	flaky := func() error {
		calls++
		if calls < 3 {
			return busy
		}
		return nil
	}
	if err := retryDelete(context.Background(), flaky, io.Discard, "x", time.Millisecond, time.Second); err != nil || calls != 3 {
		t.Errorf("a delete that succeeds on the third try: err=%v after %d calls", err, calls)
	}
	err := retryDelete(context.Background(), func() error { return busy }, io.Discard, "x", time.Millisecond, 20*time.Millisecond)
	if !errors.Is(err, busy) || !strings.Contains(err.Error(), "attempts") {
		t.Errorf("a delete that never succeeds: %v", err)
	}
}
