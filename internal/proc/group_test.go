package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestStartGroupInterruptsThenKillsTheGroup checks both stops: a process
// that cleans up on SIGINT exits by itself, and one that ignores it is
// killed after the grace, with the child it left in its group.
func TestStartGroupInterruptsThenKillsTheGroup(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wantCleanup  bool
	}{
		{"cooperates", `trap 'echo cleaned > "$OUT"; exit 0' INT; sleep 30 & echo $! > "$OUT.child"; touch "$OUT.ready"; wait`, true},
		{"ignores SIGINT", `trap '' INT; sleep 30 & echo $! > "$OUT.child"; touch "$OUT.ready"; while :; do sleep 0.05; done`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.Env = append(os.Environ(), "OUT="+out)
			ctx, cancel := context.WithCancel(t.Context())
			waitCmd, err := StartGroup(ctx, cmd, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				_, err := os.Stat(out + ".ready")
				return err == nil, nil
			}); err != nil {
				t.Fatalf("the script never started: %v", err)
			}
			cancel()
			werr := waitCmd()
			_, statErr := os.Stat(out)
			if cleaned := statErr == nil; cleaned != tc.wantCleanup {
				t.Errorf("cleaned up = %v (exit %v), want %v", cleaned, werr, tc.wantCleanup)
			}
			b, err := os.ReadFile(out + ".child")
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
				return gone(pid), nil
			}); err != nil {
				t.Fatalf("the group's child %d outlived the wait: %v", pid, err)
			}
		})
	}
}
