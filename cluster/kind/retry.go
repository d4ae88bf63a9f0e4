package kind

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// retryDelete runs del until it succeeds or timeout passes, every interval.
// Docker refuses to remove a node container that has not exited within its
// own 10s kill wait ("did not receive an exit event"); the container does
// exit moments later, so the delete is tried again rather than left behind
// or reported as the suite's failure.
func retryDelete(ctx context.Context, del func() error, progress io.Writer, name string, interval, timeout time.Duration) error {
	var last error
	attempt := 0
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(context.Context) (bool, error) {
		attempt++
		if last = del(); last != nil {
			fmt.Fprintf(progress, "kind: deleting cluster %s failed (attempt %d), trying again: %v\n", name, attempt, last)
			return false, nil
		}
		return true, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("after %d attempts in %s: %w", attempt, timeout, last)
	}
	return err
}
