package kind

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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

func TestThawFrozen(t *testing.T) {
	root := t.TempDir()
	frozen := filepath.Join(root, "node", "kubelet.slice", "pod", "cri-containerd-x.scope")
	thawed := filepath.Join(root, "node", "kubelet.slice", "other")
	for dir, state := range map[string]string{frozen: "FROZEN\n", thawed: "THAWED\n"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "freezer.state"), []byte(state), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := thawFrozen(root)
	if err != nil || n != 1 {
		t.Fatalf("thawFrozen = %d, %v; want 1 thawed", n, err)
	}
	if b, _ := os.ReadFile(filepath.Join(frozen, "freezer.state")); string(b) != "THAWED" {
		t.Errorf("frozen cgroup now %q", b)
	}
	if n, err := thawFrozen(filepath.Join(root, "absent")); n != 0 || err != nil {
		t.Errorf("a missing folder: %d, %v", n, err)
	}
}
