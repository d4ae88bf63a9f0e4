package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// retryDelete runs del until it succeeds or timeout passes, every interval.
// Docker refuses to remove a node container that has not exited within its
// own 10s kill wait ("did not receive an exit event"); the delete is tried
// again (after thawing what keeps the node from exiting, see thawFrozen)
// rather than left behind or reported as the suite's failure.
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

// freezerRoot is where a cgroup v1 host keeps Docker containers' freezer
// cgroups; absent on cgroup v2, where nothing needs thawing.
const freezerRoot = "/sys/fs/cgroup/freezer/docker"

// thawFrozen writes THAWED into every freezer.state below dir that reads
// FROZEN, and returns how many it thawed. On a cgroup v1 host, runc inside
// a kind node freezes a container's cgroup to kill it; killed itself in
// that moment (the node is being deleted), it leaves the cgroup frozen, a
// frozen task never dies, and so the node container never exits and
// Docker's removal hangs. A missing dir thaws nothing.
func thawFrozen(dir string) (int, error) {
	thawed := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "freezer.state" {
			return nil
		}
		state, err := os.ReadFile(path)
		if err != nil || strings.TrimSpace(string(state)) != "FROZEN" {
			return nil
		}
		if err := os.WriteFile(path, []byte("THAWED"), 0o644); err != nil {
			return fmt.Errorf("thaw %s: %w", filepath.Dir(path), err)
		}
		thawed++
		return nil
	})
	return thawed, err
}
