package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// Build compiles refctl into dir and returns its path. moduleRoot is the
// steadystate module's folder.
func Build(moduleRoot, dir string) (string, error) {
	out := filepath.Join(dir, "refctl")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/refctl")
	cmd.Dir = moduleRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build refctl: %v\n%s", err, b)
	}
	return out, nil
}

// Options say what to run.
type Options struct {
	// Binary is refctl's path (see Build).
	Binary string
	// Command is the refctl command: workload, cluster, composite, leader.
	Command string
	// Args are added after the command's own (--bug, timings).
	Args []string
	// Replicas is how many to run, named <Command>-0, <Command>-1, ...
	Replicas int
	// Upstream is how the proxies reach the API server.
	Upstream *rest.Config
	// Dir receives kubeconfigs and logs.
	Dir string
	// SpoolDir is where each replica's proxy keeps the older part of its
	// history (proxy.Options.Log); default Dir. It must outlive every
	// read of the proxies' logs.
	SpoolDir string
	// Confine, when set, confines each replica to that namespace through
	// its proxy (proxy.Options.Namespace): subjects of one run that share
	// a control plane each see only their own namespace's objects.
	Confine string
	// Spec, when set, says how to run a replica instead of refctl: any
	// controller can run behind the proxies. Binary and Args are then
	// unused; Command still names the replicas.
	Spec func(ReplicaEnv) (proc.Spec, error)
}

// ReplicaEnv is what one replica is started with.
type ReplicaEnv struct {
	// ID is the replica's name, Kubeconfig its kubeconfig (pointing at
	// its proxy).
	ID, Kubeconfig string
	// Dir is a folder of the replica's own, empty at its start.
	Dir string
}

// Subject is the running replicas.
type Subject struct {
	// Replicas are the running replicas, each a chaos.ProcessHost.
	Replicas []chaos.Replica
	proxies  []*proxy.Proxy
	procs    []*proc.Proc
}

// Start runs the replicas, each behind its own proxy, with leader election
// in namespace "default" unless Args say otherwise, and health and metrics
// endpoints off (several replicas share the host).
func Start(o Options) (*Subject, error) {
	if o.Replicas < 1 {
		return nil, errors.New("runner: at least one replica")
	}
	s := &Subject{}
	for i := range o.Replicas {
		id := fmt.Sprintf("%s-%d", o.Command, i)
		// The proxy keeps a window of its history in memory, the rest in
		// a file.
		spool := o.SpoolDir
		if spool == "" {
			spool = o.Dir
		}
		// Unique: two subjects of one spec may share replica names.
		log, err := os.CreateTemp(spool, id+"-*.proxy.jsonl")
		if err != nil {
			s.Stop()
			return nil, fmt.Errorf("runner: the proxy's log file: %w", err)
		}
		log.Close()
		p, err := proxy.Start(proxy.Options{Upstream: o.Upstream, Replica: id, Log: log.Name(), Namespace: o.Confine})
		if err != nil {
			s.Stop()
			return nil, err
		}
		s.proxies = append(s.proxies, p)
		kubeconfig := filepath.Join(o.Dir, id+".kubeconfig")
		if err := p.WriteKubeconfig(kubeconfig); err != nil {
			s.Stop()
			return nil, err
		}
		env := ReplicaEnv{ID: id, Kubeconfig: kubeconfig, Dir: filepath.Join(o.Dir, id)}
		if err := os.MkdirAll(env.Dir, 0o755); err != nil {
			s.Stop()
			return nil, err
		}
		spec, err := o.spec(env)
		if err != nil {
			s.Stop()
			return nil, err
		}
		spec.Name, spec.LogPath = id, filepath.Join(o.Dir, id+".log")
		pr, err := proc.Start(spec)
		if err != nil {
			s.Stop()
			return nil, err
		}
		s.procs = append(s.procs, pr)
		s.Replicas = append(s.Replicas, chaos.Replica{Identity: id, Proxy: p, Host: chaos.ProcessHost{P: pr}})
	}
	return s, nil
}

func (o Options) spec(r ReplicaEnv) (proc.Spec, error) {
	if o.Spec != nil {
		return o.Spec(r)
	}
	args := append([]string{o.Command, "--kubeconfig=" + r.Kubeconfig, "--identity=" + r.ID, "--health-addr=0", "--metrics-addr=0"}, o.Args...)
	return proc.Spec{Path: o.Binary, Args: args}, nil
}

// Stop terminates every replica (SIGTERM, SIGKILL after 10s) and closes the
// proxies.
func (s *Subject) Stop() {
	for _, p := range s.procs {
		p.Stop(10 * time.Second)
	}
	for _, p := range s.proxies {
		p.Close()
	}
}

// Proxy is the proxy of replica i.
func (s *Subject) Proxy(i int) *proxy.Proxy { return s.proxies[i] }

// Proc is the process of replica i.
func (s *Subject) Proc(i int) *proc.Proc { return s.procs[i] }

// LogContains reports whether replica i's log holds text.
func (s *Subject) LogContains(i int, text string) bool {
	return s.procs[i].LogContains(text)
}

// CountInLog counts how often text appears in replica i's log.
func (s *Subject) CountInLog(i int, text string) int {
	data, err := os.ReadFile(s.procs[i].LogPath())
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte(text))
}

// LogHasLine reports whether some line of replica i's log holds every one
// of parts.
func (s *Subject) LogHasLine(i int, parts ...string) bool {
	data, err := os.ReadFile(s.procs[i].LogPath())
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		all := true
		for _, p := range parts {
			all = all && bytes.Contains(line, []byte(p))
		}
		if all {
			return true
		}
	}
	return false
}

// Exited reports whether any replica has exited, and the first one's error.
func (s *Subject) Exited() (bool, error) {
	for _, p := range s.procs {
		if p.Exited() {
			return true, p.ExitError()
		}
	}
	return false, nil
}

// WaitReady waits until cond holds, failing early if a replica exits.
func (s *Subject) WaitReady(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if exited, err := s.Exited(); exited {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
