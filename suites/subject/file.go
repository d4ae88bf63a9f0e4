package subject

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/freeport"
	"github.com/steadystate-dev/steadystate/internal/pki"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// fileSubject is a controller described by a subject file.
type fileSubject struct{ f *subjectfile.File }

var (
	_ ScalableWorkload     = (*fileSubject)(nil)
	_ LeaderElectedManager = (*fileSubject)(nil)
	_ ForegroundComposite  = (*fileSubject)(nil)
)

func (s *fileSubject) Name() string { return s.f.Name }

func (s *fileSubject) Workload() *Workload {
	if s.f.Capabilities.ScalableWorkload == nil {
		return nil
	}
	return &Workload{file: s.f}
}

func (s *fileSubject) Election() *subjectfile.LeaderElected { return s.f.Capabilities.LeaderElected }

func (s *fileSubject) StartWorkloadController(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	return s.start(ctx, spec, ns, 1, nil)
}

func (s *fileSubject) Claims() *subjectfile.ForegroundComposite {
	return s.f.Capabilities.ForegroundComposite
}

func (s *fileSubject) StartComposite(ctx context.Context, spec *testenv.Spec, ns string) (chaos.Target, ExternalSystem) {
	return s.start(ctx, spec, ns, 1, nil), nil
}

func (s *fileSubject) StartManagers(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	return s.start(ctx, spec, ns, s.f.Capabilities.LeaderElected.Replicas, nil)
}

// start runs replicas for namespace ns against upstream (nil: the
// suite's cluster) and waits until each has talked to it.
func (s *fileSubject) start(ctx context.Context, spec *testenv.Spec, ns string, replicas int, upstream *rest.Config) chaos.Target {
	if upstream == nil && Placement() == Pods {
		c, err := s.podController(ns)
		if err == nil {
			err = clusterRoleExists(ctx, testenv.Get().Kube, s.f)
		}
		if err != nil {
			Fail(err.Error())
		}
		return startPods(ctx, spec, ns, replicas, c, s.f.Run.StartTimeout.Duration)
	}
	subj, target := run(spec, onSuiteCluster(fileOptions(s.f, ns, replicas, upstream), ns))
	if err := waitStarted(ctx, s.f, subj); err != nil {
		Fail(err.Error())
	}
	return target
}

// podController is the file's run.pod for namespace ns, with a serving
// certificate for {{.CertDir}}.
func (s *fileSubject) podController(ns string) (runner.Controller, error) {
	v := s.f.Static()
	v.Kubeconfig, v.Identity, v.Namespace, v.Dir, v.CertDir, v.Port = runner.Kubeconfig, runner.PodName, ns, runner.TmpDir, runner.CertDir, runner.Port
	fail := func(field string, err error) (runner.Controller, error) {
		return runner.Controller{}, &subjectfile.Error{File: s.f.Path, Subject: s.f.Name, Field: field, Problem: err.Error()}
	}
	args, err := s.f.PodArgs(v)
	if err != nil {
		return fail("run.pod.args", err)
	}
	env, err := s.f.PodEnv(v)
	if err != nil {
		return fail("run.pod.env", err)
	}
	certs, err := servingPair()
	if err != nil {
		return fail("run.pod", err)
	}
	p := s.f.Run.Pod
	return runner.Controller{Name: s.f.Name, Image: p.Image, Args: args, Env: env, ClusterRole: p.ClusterRole, Certs: certs}, nil
}

// clusterRoleExists checks run.pod.clusterRole before any pod starts: a
// role that is not there would leave the controller forbidden everything.
func clusterRoleExists(ctx context.Context, kube kubernetes.Interface, f *subjectfile.File) error {
	role := f.Run.Pod.ClusterRole
	_, err := kube.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.pod.clusterRole", Problem: fmt.Sprintf("ClusterRole %q does not exist on the cluster", role),
			Expected: "the controller's ClusterRole, applied by run.manifests, or " + subjectfile.DefaultClusterRole}
	}
	return err
}

// fileOptions runs the file's command once per replica behind a proxy.
func fileOptions(f *subjectfile.File, ns string, replicas int, upstream *rest.Config) runner.Options {
	return runner.Options{Command: f.Name, Replicas: replicas, Upstream: upstream, Spec: func(r runner.ReplicaEnv) (proc.Spec, error) {
		port, err := freePort()
		if err != nil {
			return proc.Spec{}, err
		}
		certDir, err := servingCerts(filepath.Join(r.Dir, "certs"))
		if err != nil {
			return proc.Spec{}, err
		}
		vars := f.Static()
		vars.Kubeconfig, vars.Identity, vars.Namespace, vars.Dir, vars.CertDir, vars.Port = r.Kubeconfig, r.ID, ns, r.Dir, certDir, port
		cmd, err := f.Command(vars)
		if err != nil {
			return proc.Spec{}, &subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.command", Problem: err.Error()}
		}
		env, err := f.Environ(vars)
		if err != nil {
			return proc.Spec{}, &subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.env", Problem: err.Error()}
		}
		return proc.Spec{Path: cmd[0], Args: cmd[1:], Env: env}, nil
	}}
}

// servingCerts writes a serving certificate for loopback into dir, for
// {{.CertDir}} (see servingPair).
func servingCerts(dir string) (string, error) {
	files, err := servingPair()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return "", fmt.Errorf("{{.CertDir}}: %w", err)
		}
	}
	return dir, nil
}

// servingPair is a serving certificate for loopback and localhost
// (tls.crt, tls.key) and its CA (ca.crt), by file name.
func servingPair() (map[string][]byte, error) {
	ca, err := pki.NewCA("steadystate-subject-ca")
	if err != nil {
		return nil, err
	}
	dns, ips := pki.Loopback()
	pair, err := ca.Issue(pki.Request{Subject: pkix.Name{CommonName: "steadystate-subject"}, DNSNames: dns, IPs: ips, Usage: x509.ExtKeyUsageServerAuth})
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"tls.crt": pair.CertPEM, "tls.key": pair.KeyPEM, "ca.crt": ca.CertPEM}, nil
}

// freePort is a loopback TCP port free at the moment of asking, below
// the kernel's ephemeral range (freeport.Pick): a replica restarted keeps
// its port, and must find it free.
func freePort() (int, error) {
	p, err := freeport.Pick(1)
	if err != nil {
		return 0, fmt.Errorf("find a free port for {{.Port}}: %w", err)
	}
	return p[0], nil
}

// waitStarted waits until every replica has made a request through its
// proxy. A replica that exits first, or stays silent for run.startTimeout,
// fails the start with its log tail.
func waitStarted(ctx context.Context, f *subjectfile.File, s *runner.Subject) error {
	for i, r := range s.Replicas {
		p := s.Proxy(i)
		err := s.WaitReady(ctx, f.Run.StartTimeout.Duration, func() bool { return len(p.Requests()) > 0 })
		if err == nil {
			continue
		}
		problem := fmt.Sprintf("replica %s made no request to the API server within %s (run.startTimeout); its log:\n%s", r.Identity, f.Run.StartTimeout, proc.ExcerptFile(s.Proc(i).LogPath()))
		if s.Proc(i).Exited() {
			problem = fmt.Sprintf("replica %s exited at start: %v", r.Identity, s.Proc(i).ExitError())
		}
		return &subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.command", Problem: problem,
			Expected: "a controller that keeps running and talks to the API server through KUBECONFIG"}
	}
	return nil
}

// applyManifests applies run.manifests (CRDs, RBAC) in order before any
// replica starts.
func (s *fileSubject) applyManifests(ctx context.Context) {
	files, err := s.f.ManifestFiles()
	Expect(err).NotTo(HaveOccurred())
	for _, path := range files {
		if testenv.Run().Cluster.Share.Dir != "" {
			refuseShared(s.f, path)
		}
		Expect(fixtures.Apply(ctx, testenv.Get().REST, os.DirFS(filepath.Dir(path)), filepath.Base(path))).To(Succeed(), "subject %s: run.manifests: apply %s", s.f.Name, path)
	}
}

// calledBack are the kinds by which the API server calls a controller
// back: on a cluster that processes share, each process's would send
// every process's requests to its own controller, or to one already
// stopped.
var calledBack = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService"}

// refuseShared fails when the manifest at path holds a kind the API
// server calls back by (calledBack).
func refuseShared(f *subjectfile.File, path string) {
	kinds, err := fixtures.Kinds(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	Expect(err).NotTo(HaveOccurred(), "subject %s: run.manifests: read %s", f.Name, path)
	for _, k := range kinds {
		if slices.Contains(calledBack, k) {
			Fail((&subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.manifests", Problem: fmt.Sprintf("%s holds a %s, by which the API server calls the controller back: on a cluster the processes share (--shared-cluster) it would call one process's controller for every process's objects", path, k),
				Expected: "a cluster per process (drop --shared-cluster) for this subject"}).Error())
		}
	}
}
