package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// descendants lists the processes below pid, with their command names.
func descendants(pid int) map[int]string {
	parent, comm := map[int]int{}, map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		lparen, rparen := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if lparen < 0 || rparen < lparen {
			continue
		}
		fields := strings.Fields(s[rparen+1:])
		if len(fields) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(fields[1])
		comm[p] = s[lparen+1 : rparen]
	}
	out := map[int]string{}
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out[p] = comm[p]
				break
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie awaiting its parent does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// TestSelftestStopsEverythingOnSIGTERM starts a one-cell self-test, sends
// it SIGTERM while its suite has a cluster and a subject running, and
// checks that every process below it ended and no temporary folder is left.
func TestSelftestStopsEverythingOnSIGTERM(t *testing.T) {
	localtest.RequireBinaries(t)
	tmp := t.TempDir()
	cmd := exec.Command(binary, "selftest")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "SELFTEST_SUITES=lostevents", "SELFTEST_MODES=correct", "ARTIFACTS="+t.TempDir(), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	startOrFail(t, cmd)
	var seen map[int]string
	names := ""
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		seen = descendants(cmd.Process.Pid)
		names = strings.Join(mapValues(seen), " ")
		return strings.Contains(names, "kube-apiserver") && strings.Contains(names, "refctl"), nil
	})
	if err != nil {
		t.Fatalf("no cluster and subject below selftest within 3 minutes (%s); output:\n%s", names, out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(out.String(), "interrupted: every suite run was stopped") {
			t.Errorf("selftest exited with %v on SIGTERM; output:\n%s", err, out.String())
		}
	case <-time.After(proc.SuiteStopGrace + 30*time.Second):
		t.Fatalf("selftest did not exit within %s of SIGTERM; output:\n%s", proc.SuiteStopGrace+30*time.Second, out.String())
	}
	for pid, name := range seen {
		if alive(pid) {
			t.Errorf("%s (pid %d) still runs after selftest exited", name, pid)
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
				t.Errorf("kill %s (pid %d): %v", name, pid, err)
			}
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("temporary %s left behind in TMPDIR", e.Name())
	}
}

func mapValues(m map[int]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
