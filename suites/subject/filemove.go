package subject

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var _ MovableResource = (*fileSubject)(nil)

func (s *fileSubject) Movable() *subjectfile.MovableResource {
	return s.f.Capabilities.MovableResource
}

// Install applies run.manifests to another cluster, in order.
func (s *fileSubject) Install(ctx context.Context, cfg *rest.Config) error {
	files, err := s.f.ManifestFiles()
	if err != nil {
		return err
	}
	for _, path := range files {
		if err := fixtures.Apply(ctx, cfg, os.DirFS(filepath.Dir(path)), filepath.Base(path)); err != nil {
			return fmt.Errorf("subject %s: run.manifests: apply %s: %w", s.f.Name, path, err)
		}
	}
	return nil
}

func (s *fileSubject) StartResourceController(ctx context.Context, spec *testenv.Spec, upstream *rest.Config, ns string) chaos.Target {
	return s.start(ctx, spec, ns, 1, upstream)
}

// Move runs the binding's mover. Its requests to the source cluster go
// through a fault proxy of its own, which slows its deletes of the
// resource when the binding says so; the proxy's log is kept with the
// spec's evidence as "mover".
func (s *fileSubject) Move(ctx context.Context, spec *testenv.Spec, from, to, ns string) ([]byte, error) {
	m := s.f.Capabilities.MovableResource
	fromREST, err := clientcmd.BuildConfigFromFlags("", from)
	if err != nil {
		return nil, fmt.Errorf("mover: source kubeconfig %s: %w", from, err)
	}
	p, err := proxy.Start(proxy.Options{Upstream: fromREST, Replica: "mover"})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	dir := GinkgoT().TempDir()
	viaProxy := filepath.Join(dir, "source.kubeconfig")
	if err := p.WriteKubeconfig(viaProxy); err != nil {
		return nil, err
	}
	if d := m.Mover.SlowDeletes.Duration; d > 0 {
		if _, err := p.AddRule(proxy.Rule{Action: proxy.Slow, Delay: metav1.Duration{Duration: d}, Match: proxy.Match{Verbs: []string{"delete"}, Resource: m.Resource}}); err != nil {
			return nil, err
		}
	}
	vars := s.f.Static()
	vars.SourceKubeconfig, vars.TargetKubeconfig, vars.Namespace, vars.Dir = viaProxy, to, ns, dir
	cmd := make([]string, len(m.Mover.Command))
	for i, c := range m.Mover.Command {
		if cmd[i], err = subjectfile.Expand(c, vars); err != nil {
			return nil, &subjectfile.Error{File: s.f.Path, Subject: s.f.Name, Field: fmt.Sprintf("capabilities.movableResource.mover.command[%d]", i), Problem: err.Error()}
		}
	}
	requests := p.Requests
	defer spec.KeepLog("mover", func() (any, error) { return requests(), nil })
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	// A folder of its own for what the tool keeps (clusterctl's config
	// and caches under HOME).
	c.Env = append(os.Environ(), "KUBECONFIG="+viaProxy, "HOME="+dir, "XDG_CONFIG_HOME="+dir)
	c.Dir = dir
	return c.CombinedOutput()
}
