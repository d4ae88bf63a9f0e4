package local

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/internal/proc"
)

// componentEnv is what a component's environment has beyond the
// harness's: one processor for Go code (GOMAXPROCS=1), unless GOMAXPROCS
// is in the environment (then the component inherits it). A component
// spends most of a run waiting; with more than one processor, each
// wake-up can wake a second thread that finds nothing to do (an idle API
// server's profile: 56% of its CPU in the scheduler's search for work).
// In twelve-process hunts on one shared cluster the API server used 7 to
// 11% less CPU a schedule, for a cluster start 0.2 to 0.35 s slower
// (docs/figures.md). The subjects and the suite processes keep the Go
// runtime's defaults.
func componentEnv() []string {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return nil
	}
	return []string{"GOMAXPROCS=1"}
}

func (c *Cluster) start(name, path string, args []string) (*proc.Proc, error) {
	p, err := proc.Start(proc.Spec{Name: name, Path: path, Args: args, Env: componentEnv(), LogPath: logPath(c.logDir, name)})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs[name] = p
	c.mu.Unlock()
	return p, nil
}

func (c *Cluster) anyAddressInUse() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		if p.LogContains("address already in use") {
			return true
		}
	}
	return false
}

// PIDs maps each running component to its process ID.
func (c *Cluster) PIDs() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := map[string]int{}
	for name, p := range c.procs {
		if !p.Exited() {
			pids[name] = p.PID()
		}
	}
	return pids
}

// RestartControllerManager stops kube-controller-manager and starts it
// again, waiting until it is healthy. Its controllers then start anew: the
// garbage collector discovers every resource the API server serves at
// once, instead of on its next 30s resync.
func (c *Cluster) RestartControllerManager(ctx context.Context) error {
	c.mu.Lock()
	kcm := c.procs[ControllerManager]
	c.mu.Unlock()
	if kcm == nil {
		return fmt.Errorf("cluster %s runs no kube-controller-manager", c.opts.Name)
	}
	if err := kcm.Restart(c.opts.StopGrace); err != nil {
		return err
	}
	check, err := controllerManagerHealthy(c.ports.controllerManager, c.pki)
	if err != nil {
		return err
	}
	return waitHealthy(ctx, kcm, c.ports.controllerManager, 60*time.Second, check)
}

// stopProcess stops one process and forgets it.
func (c *Cluster) stopProcess(name string) {
	c.mu.Lock()
	p := c.procs[name]
	delete(c.procs, name)
	c.mu.Unlock()
	if p != nil {
		p.Stop(c.opts.StopGrace)
	}
}

// stopProcesses stops the pod remover, then every process but etcd
// together, then etcd (the cluster's, and a seeding start's), so no API
// server loses its storage while still serving.
func (c *Cluster) stopProcesses() {
	c.stopPodRemover()
	c.mu.Lock()
	procs := c.procs
	c.procs = map[string]*proc.Proc{}
	c.mu.Unlock()
	isEtcd := func(name string) bool { return strings.HasSuffix(name, Etcd) }
	var wg sync.WaitGroup
	for name, p := range procs {
		if !isEtcd(name) {
			wg.Go(func() { p.Stop(c.opts.StopGrace) })
		}
	}
	wg.Wait()
	for name, p := range procs {
		if isEtcd(name) {
			wg.Go(func() { p.Stop(c.opts.StopGrace) })
		}
	}
	wg.Wait()
}
