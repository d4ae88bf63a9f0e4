package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
)

// A kept schedule replays through `steadystate explore --replay`: the
// lost create breaks the seeded bug's properties, the follower's shutdown
// the leader bug's, a successor made while its predecessor deletes the
// external-name bug's and a delete held by another finalizer the 422
// bug's, each on the property it breaks; the correct subjects pass the
// same schedules. A finding fails the command.
func TestExploreReplaysSchedules(t *testing.T) {
	localtest.RequireBinaries(t)
	t.Parallel()
	schedules := filepath.Join("suites", "explore", "testdata")
	for _, tc := range []struct {
		name     string
		args     []string
		finding  bool
		contains string
	}{
		{"lost create, bug", []string{"--subject", "workload", "--bug", "expectations-never-expire", "--replay", filepath.Join(schedules, "lost-create.yaml")},
			true, "broke lostevents/converges-after-faults, lostevents/later-scale-acted-on"},
		{"lost create, correct", []string{"--subject", "workload", "--replay", filepath.Join(schedules, "lost-create.yaml")},
			false, "1 schedule(s)"},
		{"follower terminated, bug", []string{"--subject", "leader", "--bug", "start-leader-runnables-on-shutdown", "--replay", filepath.Join(schedules, "follower-terminated.yaml")},
			true, "broke leader/only-holder-writes"},
		{"follower terminated, correct", []string{"--subject", "leader", "--replay", filepath.Join(schedules, "follower-terminated.yaml")},
			false, "1 schedule(s)"},
		{"successor, bug", []string{"--subject", "composite", "--bug", "external-name-reuse", "--replay", filepath.Join(schedules, "successor.yaml")},
			true, "broke foreground/successor-ready, foreground/no-delete-in-use"},
		{"successor, correct", []string{"--subject", "composite", "--replay", filepath.Join(schedules, "successor.yaml")},
			false, "1 schedule(s)"},
		{"held delete, bug", []string{"--subject", "cluster", "--bug", "finalizer-while-deleting", "--replay", filepath.Join(schedules, "held-delete.yaml")},
			true, "broke finalizer/P3"},
		{"held delete, correct", []string{"--subject", "cluster", "--replay", filepath.Join(schedules, "held-delete.yaml")},
			false, "1 schedule(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each replay has a cluster of its own and mostly waits:
			// they run as many at a time as go test's -parallel
			// allows (GOMAXPROCS by default), beside the other
			// parallel tests of this package.
			t.Parallel()
			cmd := command(t, t.TempDir(), append([]string{"explore"}, tc.args...)...)
			cmd.Dir = filepath.Join("..", "..")
			out, err := cmd.CombinedOutput()
			_, failed := err.(*exec.ExitError)
			if failed != tc.finding || !strings.Contains(string(out), tc.contains) || strings.Contains(string(out), "error:") {
				t.Errorf("exit error %v, output:\n%s\nwant a finding: %v, and %q", err, out, tc.finding, tc.contains)
			}
		})
	}
}

// Two suite processes share one cluster (--shared-cluster): the first
// starts it and publishes its kubeconfig, the second registers, uses it
// and leaves, the first tears it down after; the correct composite's
// schedules pass with no error on it.
// The budget leaves room for the two reference runs (each process
// waits about 30 s for the garbage collector's rediscovery first: the
// shared kube-controller-manager is not restarted), beside this
// package's other tests.
func TestExploreSharesOneCluster(t *testing.T) {
	localtest.RequireBinaries(t)
	t.Parallel()
	artifacts := t.TempDir()
	cmd := command(t, t.TempDir(), "explore", "--subject", "composite", "--capability", "reconciledObjects", "--budget", "90s", "--seed", "1", "--parallel", "2", "--shared-cluster")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(cmd.Env, "ARTIFACTS="+artifacts)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "(2 suite processes side by side, one cluster shared)") || !strings.Contains(string(out), "0 finding(s), 0 error(s)") {
		t.Fatalf("exit error %v, output:\n%s\nwant the schedules of two processes on one cluster, no finding, no error", err, out)
	}
	shared := filepath.Join(artifacts, "explore", "run", "cluster")
	for _, pattern := range []string{"kubeconfig", "closed", "guest-*", "left-*"} {
		if m, _ := filepath.Glob(filepath.Join(shared, pattern)); len(m) != 1 {
			t.Errorf("%s holds %v for %s: want one (the owner's kubeconfig and close, the guest's registration and leave)", shared, m, pattern)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(artifacts, "explore", "run", "shard-2", "cluster-*")); len(m) != 0 {
		t.Errorf("the guest process kept a cluster's logs %v: want the owner's cluster only", m)
	}
}
