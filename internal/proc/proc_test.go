package proc

import (
	"fmt"
	"path/filepath"
	"slices"
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

// A controller that exits at start on a flag it does not know says so in
// its log's first line, and Go's flag package then prints its usage: the
// exit error shows that first line as well as the log's end.
func TestExitErrorShowsTheLogsFirstLines(t *testing.T) {
	p, err := Start(sh(t, `echo "flag provided but not defined: -kubeconfg" >&2
echo "Usage of manager:" >&2
i=0; while [ $i -lt 40 ]; do echo "  -option$i string" >&2; i=$((i+1)); done
exit 2`))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	msg := p.ExitError().Error()
	for _, want := range []string{"exit status 2", "flag provided but not defined: -kubeconfg", "… 17 lines …", "-option39 string", "-option20 string"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "-option19 string") {
		t.Errorf("%q keeps a line from the log's middle", msg)
	}
}

// An excerpt keeps a short log whole, and of a long one its first and
// last lines, counting those left out.
func TestExcerpt(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	short := strings.Join(lines[:ExcerptHead+ExcerptTail], "\n")
	if got := Excerpt(short + "\n"); got != short {
		t.Errorf("a log of %d lines became:\n%s", ExcerptHead+ExcerptTail, got)
	}
	want := strings.Join(append(append(slices.Clone(lines[:5]), "… 5 lines …"), lines[10:]...), "\n")
	if got := Excerpt(strings.Join(lines, "\n")); got != want {
		t.Errorf("excerpt:\n%s\nwant:\n%s", got, want)
	}
	if got := Excerpt("\n\n"); got != "(the log is empty)" {
		t.Errorf("an empty log: %q", got)
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
