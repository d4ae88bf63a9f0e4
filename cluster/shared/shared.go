package shared

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/support"

	"github.com/steadystate-dev/steadystate/cluster/existing"
	"github.com/steadystate-dev/steadystate/internal/atomicfile"
)

// The files in the shared folder.
const (
	kubeconfigFile = "kubeconfig"
	failedFile     = "failed"
	closedFile     = "closed"
	guestPrefix    = "guest-"
	leftPrefix     = "left-"
)

// poll is how often a guest looks for the kubeconfig and the owner for
// guests still there.
const poll = 200 * time.Millisecond

// LeaveWait bounds how long the owner waits for its guests to leave
// before it tears the cluster down all the same.
const LeaveWait = 15 * time.Minute

// Owner starts the cluster with its provider and shares it through Dir.
// It exposes only the provider's e2e-framework methods: nothing a guest
// shares (the cluster's kube-controller-manager) is restarted.
type Owner struct {
	support.E2EClusterProvider
	Dir string
	// Progress gets a line while the owner waits for its guests.
	Progress io.Writer
	// wait is LeaveWait unless a test sets it.
	wait time.Duration
}

// NewOwner shares the cluster p creates through dir.
func NewOwner(p support.E2EClusterProvider, dir string, progress io.Writer) *Owner {
	return &Owner{E2EClusterProvider: p, Dir: dir, Progress: progress, wait: LeaveWait}
}

// Create starts the cluster and publishes its kubeconfig, its context
// made current; a cluster that did not start leaves the reason in the
// folder for the guests.
func (o *Owner) Create(ctx context.Context, args ...string) (string, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return "", fmt.Errorf("the shared cluster's folder: %w", err)
	}
	path, err := o.E2EClusterProvider.Create(ctx, args...)
	if err == nil {
		err = o.publish(path)
	}
	if err != nil {
		if werr := atomicfile.WriteFile(filepath.Join(o.Dir, failedFile), []byte(err.Error())); werr != nil {
			return "", errors.Join(err, werr)
		}
		return "", err
	}
	return path, nil
}

// CreateWithConfig is Create: the owner's provider reads no file.
func (o *Owner) CreateWithConfig(ctx context.Context, _ string) (string, error) {
	return o.Create(ctx)
}

func (o *Owner) publish(path string) error {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return fmt.Errorf("the shared cluster's kubeconfig: %w", err)
	}
	if name := o.GetKubectlContext(); name != "" {
		cfg.CurrentContext = name
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(o.Dir, kubeconfigFile), data)
}

// Destroy closes the cluster to new guests, waits until every guest has
// left (at most LeaveWait, or until ctx ends), then tears it down.
func (o *Owner) Destroy(ctx context.Context) error {
	if err := atomicfile.WriteFile(filepath.Join(o.Dir, closedFile), nil); err != nil {
		return err
	}
	var here []int
	said := false
	waitCtx, cancel := context.WithTimeout(ctx, o.wait)
	defer cancel()
	err := wait.PollUntilContextCancel(waitCtx, poll, true, func(context.Context) (bool, error) {
		here = o.guestsHere()
		if len(here) > 0 && !said && o.Progress != nil {
			fmt.Fprintf(o.Progress, "shared cluster: waiting for %d guest process(es) to leave before tearing it down: %v\n", len(here), here)
			said = true
		}
		return len(here) == 0, nil
	})
	destroyErr := o.E2EClusterProvider.Destroy(ctx)
	if err != nil {
		return errors.Join(fmt.Errorf("shared cluster: torn down with guest process(es) %v still there after %s", here, o.wait), destroyErr)
	}
	return destroyErr
}

// guestsHere are the registered guests that have not left and are alive.
func (o *Owner) guestsHere() []int {
	entries, err := os.ReadDir(o.Dir)
	if err != nil {
		return nil
	}
	var here []int
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), guestPrefix))
		if !strings.HasPrefix(e.Name(), guestPrefix) || err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(o.Dir, leftPrefix+strconv.Itoa(pid))); err == nil {
			continue
		}
		if syscall.Kill(pid, 0) == nil {
			here = append(here, pid)
		}
	}
	return here
}

// Guest uses the cluster an Owner shares through Dir: an existing
// cluster, once the owner has written its kubeconfig there.
type Guest struct {
	*existing.Provider
	Dir string
	// pid is this process's, by which it registered.
	pid int
}

var _ support.E2EClusterProvider = (*Guest)(nil)

// NewGuest joins the cluster shared through dir.
func NewGuest(dir string) *Guest {
	return &Guest{Provider: existing.NewProvider(filepath.Join(dir, kubeconfigFile), ""), Dir: dir, pid: os.Getpid()}
}

// ErrClosed means the owner had closed the cluster before the guest came.
var ErrClosed = errors.New("the shared cluster's owner has closed it: its run ended before this process joined (see the owner's log)")

// Create registers the guest and waits, until ctx ends, for the owner's
// kubeconfig, then uses it as an existing cluster's; it fails with the
// owner's reason when the cluster did not come up, and with ErrClosed
// when the owner is tearing it down.
func (g *Guest) Create(ctx context.Context, _ ...string) (string, error) {
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		return "", fmt.Errorf("the shared cluster's folder: %w", err)
	}
	// Registered before the closed mark is read: an owner that closes
	// after this sees the guest, and one that closed before is seen here.
	if err := atomicfile.WriteFile(filepath.Join(g.Dir, guestPrefix+strconv.Itoa(g.pid)), nil); err != nil {
		return "", err
	}
	err := wait.PollUntilContextCancel(ctx, poll, true, func(context.Context) (bool, error) {
		if _, err := os.Stat(filepath.Join(g.Dir, closedFile)); err == nil {
			return false, ErrClosed
		}
		if why, err := os.ReadFile(filepath.Join(g.Dir, failedFile)); err == nil {
			return false, fmt.Errorf("the shared cluster did not come up in its owner's process: %s", why)
		}
		_, err := os.Stat(filepath.Join(g.Dir, kubeconfigFile))
		return err == nil, nil
	})
	if wait.Interrupted(err) {
		return "", fmt.Errorf("the shared cluster's kubeconfig did not appear in %s (%w): see its owner's log", g.Dir, err)
	}
	if err != nil {
		return "", err
	}
	return g.Provider.Create(ctx)
}

// CreateWithConfig is Create: the guest reads the owner's file.
func (g *Guest) CreateWithConfig(ctx context.Context, _ string) (string, error) {
	return g.Create(ctx)
}

// Destroy leaves the cluster to its owner.
func (g *Guest) Destroy(context.Context) error {
	return atomicfile.WriteFile(filepath.Join(g.Dir, leftPrefix+strconv.Itoa(g.pid)), nil)
}
