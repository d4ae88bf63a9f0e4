package proc

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(t *testing.T, script string) Spec {
	return Spec{Name: "sh", Path: "/bin/sh", Args: []string{"-c", script}, LogPath: filepath.Join(t.TempDir(), "sh.log")}
}

func gone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

func TestStopEscalatesToKillAfterGrace(t *testing.T) {
	// Ignores SIGTERM: only the SIGKILL after the grace period ends it.
	p, err := Start(sh(t, `trap "" TERM; echo started; while true; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	pid := p.PID()
	p.Stop(200 * time.Millisecond)
	if !p.Exited() || !gone(pid) {
		t.Fatalf("pid %d survived Stop", pid)
	}
}

func TestStopIsGracefulWhenTheProcessCooperates(t *testing.T) {
	p, err := Start(sh(t, `trap "echo bye; exit 0" TERM; while true; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	p.Stop(10 * time.Second)
	if !p.Exited() {
		t.Fatal("not stopped")
	}
}

func TestRestartGivesANewProcessAndKeepsTheLog(t *testing.T) {
	p, err := Start(sh(t, `echo run; exec sleep 60`))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	waitForRuns(t, p, 1)
	first := p.PID()
	if err := p.Restart(time.Second); err != nil {
		t.Fatal(err)
	}
	if p.PID() == first || !gone(first) || p.Exited() {
		t.Fatalf("restart: old pid %d gone=%v, new pid %d exited=%v", first, gone(first), p.PID(), p.Exited())
	}
	waitForRuns(t, p, 2) // the log is appended across restarts
	p.Kill()
	if !gone(p.PID()) {
		t.Fatal("Kill left the process")
	}
}

func TestExitErrorShowsTheLogTail(t *testing.T) {
	p, err := Start(sh(t, `echo "fatal: bad flag --nope" >&2; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	msg := p.ExitError().Error()
	for _, want := range []string{"sh exited during start-up", "exit status 3", "fatal: bad flag --nope", p.LogPath()} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

func TestStartReportsAMissingBinary(t *testing.T) {
	_, err := Start(Spec{Name: "ghost", Path: "/nonexistent/bin", LogPath: filepath.Join(t.TempDir(), "log")})
	if err == nil || !strings.Contains(err.Error(), "start ghost (/nonexistent/bin)") {
		t.Fatalf("err = %v", err)
	}
}

func waitForRuns(t *testing.T, p *Proc, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(Tail(p.LogPath(), 10), "run") < n {
		if time.Now().After(deadline) {
			t.Fatalf("log does not show %d runs:\n%s", n, Tail(p.LogPath(), 10))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
