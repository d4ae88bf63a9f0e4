package local

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// brokenBinDir holds the real etcd, kube-controller-manager,
// kube-scheduler and kwok and a kube-apiserver that fails at once, as a bad
// build or bad flag would.
func brokenBinDir(t *testing.T, b Binaries) string {
	requireNodeBinaries(t, b)
	dir := t.TempDir()
	for _, path := range []string{b.Etcd, b.ControllerManager, b.Scheduler, b.Kwok} {
		if err := os.Symlink(path, filepath.Join(dir, filepath.Base(path))); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\necho 'Error: unknown flag: --pretend-broken' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "kube-apiserver"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStartFailureStopsEverythingAndSaysWhy(t *testing.T) {
	b := requireBinaries(t)
	before := workDirs(t, "broken")
	logDir := t.TempDir()
	_, err := Start(t.Context(), Options{Name: "broken", BinDir: brokenBinDir(t, b), LogDir: logDir})
	if err == nil {
		t.Fatal("Start succeeded with a kube-apiserver that exits at once")
	}
	for _, want := range []string{"kube-apiserver exited during start-up", "unknown flag: --pretend-broken", logDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if after := workDirs(t, "broken"); len(after) != len(before) {
		t.Errorf("temporary folder left behind: %v", after)
	}
	assertNoChildren(t)
}

func TestInterruptedStartStopsEverything(t *testing.T) {
	b := requireBinaries(t)
	before := workDirs(t, "interrupted")
	ctx, cancel := context.WithCancel(t.Context())
	progress := &signalWriter{match: "starting kube-apiserver", fn: cancel}
	_, err := Start(ctx, Options{Name: "interrupted", BinDir: binDirOf(b), Progress: progress})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("Start error = %v, want an interrupted start-up", err)
	}
	if after := workDirs(t, "interrupted"); len(after) != len(before) {
		t.Errorf("temporary folder left behind: %v", after)
	}
	assertNoChildren(t)
}

// signalWriter calls fn the first time a progress line contains match.
type signalWriter struct {
	match string
	fn    func()
	done  bool
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if !w.done && strings.Contains(string(p), w.match) {
		w.done = true
		w.fn()
	}
	return len(p), nil
}

// assertNoChildren fails if this test process still has child processes:
// every component a failed Start launched must be stopped and reaped.
func assertNoChildren(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		kids := children(t)
		if len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child processes left running: %v", kids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// children lists the live child processes of this test process, from the
// parent PID field of /proc/<pid>/stat.
func children(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	var kids []string
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited while we looked
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut at ')'.
		_, rest, ok := strings.Cut(string(data), ") ")
		fields := strings.Fields(rest)
		if ok && len(fields) > 1 && fields[1] == self {
			kids = append(kids, strings.TrimSuffix(filepath.Base(filepath.Dir(path)), "/")+" "+fields[0])
		}
	}
	return kids
}
