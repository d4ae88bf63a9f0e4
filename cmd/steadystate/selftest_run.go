package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/verdict"
)

// stopGrace is how long an interrupted suite may take to clean up (stop its
// subject and delete its cluster) before it is killed.
const stopGrace = 45 * time.Second

// runCell runs one cell's suite binary in its own process group, with the
// cell's subject mode, and judges it from Ginkgo's JSON report. When ctx
// ends, the suite is interrupted (SIGINT: Ginkgo runs its cleanup) and
// killed with its group after stopGrace; its processes started with a
// parent-death signal go with it.
func runCell(ctx context.Context, bins selftestBins, c reports.Cell, dir string, worker int, provider string, env []string) reports.Run {
	run := reports.Run{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		run.Err = err.Error()
		return run
	}
	log, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		run.Err = err.Error()
		return run
	}
	defer log.Close()
	report := filepath.Join(dir, "report.json")
	cmd := exec.Command(bins.suites[c.Suite], "-ginkgo.no-color", "-ginkgo.timeout=30m",
		"-ginkgo.json-report="+report)
	// Ginkgo runs a suite in its package's folder; so do we.
	cmd.Dir = filepath.Join("suites", c.Suite)
	bug := ""
	if c.Bug != nil {
		bug = c.Bug.Name
	}
	cmd.Env = append(os.Environ(), "SUBJECT="+c.Subject, "SUBJECT_BUG="+bug, "SUBJECT_FILE=", "ARTIFACTS="+dir, "REFCTL_BINARY="+bins.refctl)
	if c.SubjectFile != "" {
		cmd.Env = append(cmd.Env, "SUBJECT=", "SUBJECT_BUG=", "SUBJECT_FILE="+c.SubjectFile)
	}
	cmd.Env = append(cmd.Env, env...)
	if provider == "kind" {
		cmd.Env = append(cmd.Env, fmt.Sprintf("KIND_CLUSTER_NAME=steadystate-selftest-%d", worker))
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		run.Err = err.Error()
		return run
	}
	exited := make(chan struct{})
	go func() {
		select {
		case <-exited:
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-exited:
			case <-time.After(stopGrace):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		}
	}()
	_ = cmd.Wait() // the verdict comes from the report, not the exit code
	close(exited)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything of the group left behind
	run.Took = time.Since(start)
	reps, err := verdict.ReadReport(report)
	if err != nil {
		run.Err = fmt.Sprintf("%v; see %s", err, log.Name())
		return run
	}
	if err := writeJUnit(report, filepath.Join(dir, "junit.xml"), nil); err != nil {
		run.Err = err.Error()
		return run
	}
	for _, rep := range reps {
		run.Seed = rep.SuiteConfig.RandomSeed
		run.Specs = append(run.Specs, verdict.Specs(rep)...)
	}
	return run
}
