package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/discovery"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/existing"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/testenv"
	"github.com/steadystate-dev/steadystate/matrix"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// conformConfig is a conformance run's configuration, read once from the
// flags and the environment.
type conformConfig struct {
	subject, out, provider string
	kubernetes             string
	// version and binDir are the local control plane's (KUBE_VERSION,
	// KUBE_BIN_DIR or the cache's folder for the version); buildBins
	// says the cache's must be built first if they are not.
	version, binDir string
	buildBins       bool
	// pods says the subject runs in pods (kind, SUBJECT_PLACEMENT=pods).
	pods  bool
	upDir string
	file  *subjectfile.File
	run   matrix.Run
}

func conformConfigFrom(args []string) (conformConfig, error) {
	var c conformConfig
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.subject, "subject", "", "the subject file")
	fs.StringVar(&c.out, "out", "", "the bundle to write")
	fs.StringVar(&c.provider, "provider", os.Getenv("PROVIDER"), "local, kind or existing")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: conform: %w", errUsage, err)
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: conform takes flags only (--subject FILE, --provider, --out), not %q", errUsage, fs.Arg(0))
	case c.subject == "":
		return c, fmt.Errorf("%w: conform needs --subject FILE, the subject file that describes the controller", errUsage)
	case c.provider == "":
		c.provider = cluster.Local
	case !slices.Contains(cluster.Providers, c.provider):
		return c, fmt.Errorf("--provider %s: conform runs on local (a control plane of processes here), kind (the controller in pods) or existing (the cluster of $KUBECONFIG, or the one this pod runs in)", c.provider)
	}
	var err error
	if c.run, err = newMatrixRun("conform", "conformance", "CONFORM", 2); err != nil {
		return c, err
	}
	if c.out == "" {
		c.out = filepath.Join(filepath.Dir(c.run.Root), "conformance.tar.gz")
	}
	if c.subject, err = filepath.Abs(c.subject); err != nil {
		return c, err
	}
	// The cache holds the upstream releases and the local control plane:
	// a run in a pod, on an existing cluster, may have neither.
	c.upDir, _ = upstreamDir()
	c.version = os.Getenv("KUBE_VERSION")
	if c.version == "" {
		c.version = local.DefaultKubeVersion
	}
	c.binDir = os.Getenv("KUBE_BIN_DIR")
	c.buildBins = c.provider == cluster.Local && c.binDir == ""
	if root, err := local.CacheRoot(); c.binDir == "" && err == nil {
		c.binDir = local.BinDirFor(root, c.version)
	}
	c.kubernetes = c.version
	switch c.provider {
	case cluster.Kind:
		c.kubernetes = os.Getenv("KIND_NODE_IMAGE")
		if c.kubernetes == "" {
			c.kubernetes = "steadystate/kind-node:" + c.version
		}
	case cluster.Existing:
		c.kubernetes = "existing cluster"
	}
	c.run.Provider = c.provider
	c.run.Progress = true
	// Every spec keeps its evidence, passed or not: the bundle's every
	// judged verdict can then be judged again (steadystate verify).
	c.run.Env = append(c.run.Env, "PROVIDER="+c.provider, "UPSTREAM_DIR="+c.upDir, "STEADYSTATE_KEEP_EVIDENCE=1")
	c.pods = c.provider == cluster.Kind || os.Getenv("SUBJECT_PLACEMENT") == testenv.Pods
	return c, nil
}

// load reads the subject file, once the local control plane it may name
// ({{.KubeBinDir}}) is built, and refuses one that cannot run where the
// run places it.
func (c *conformConfig) load(ctx context.Context, stderr io.Writer) error {
	// A path that is wrong is said before minutes of building.
	f, err := os.Open(c.subject)
	if err != nil {
		return fmt.Errorf("subject file: %w (--subject names the YAML file that describes the controller; see fixtures/subjects for examples)", err)
	}
	f.Close()
	if c.buildBins {
		// Everything but the programs it names is checked before
		// minutes of building: a file no suite can use is said at once.
		pre := subjectfile.Options{UpstreamDir: c.upDir, KubeBinDir: c.binDir, FromImage: true}
		if _, err := subjectfile.Load(c.subject, pre); err != nil {
			return err
		}
		if _, err := local.BuildBinaries(ctx, c.version, stderr); err != nil {
			return err
		}
	}
	// As the suites decide (testenv.Config.FromImage): in pods on an
	// existing cluster, the controller starts from its image as it is.
	o := subjectfile.Options{UpstreamDir: c.upDir, KubeBinDir: c.binDir, FromImage: c.pods && c.provider == cluster.Existing}
	if c.file, err = subjectfile.Load(c.subject, o); err != nil {
		return err
	}
	if c.pods && c.file.Run.Pod == nil {
		return fmt.Errorf("subject file %s has no run.pod: on --provider %s the controller runs in pods; add run.pod, or use --provider local", c.subject, c.provider)
	}
	return nil
}

// conformCommand runs every suite the subject file's capabilities allow
// against it, once, and writes one results bundle with a summary.
func conformCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := conformConfigFrom(args)
	if err != nil {
		return err
	}
	if err := c.load(ctx, stderr); err != nil {
		return err
	}
	// The subject's own name, not its file's: a Job's file is always
	// subject.yaml.
	stem := c.file.Name
	var cells []reports.Cell
	bound := c.file.Capabilities.Bound()
	for _, s := range catalog.Suites {
		if slices.Contains(bound, s.Capability) {
			cells = append(cells, reports.Cell{Suite: s.Name, Subject: stem, SubjectFile: c.subject, MaySkip: true, Conformance: true})
		}
	}
	if c.provider == cluster.Existing {
		c.kubernetes = serverVersion(ctx)
	}
	// The bundle holds this run only: every report and evidence file in
	// it is from after started.
	started := time.Now().UTC()
	if err := os.RemoveAll(c.run.Root); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "conform: %s binds %s: suites %s on %s\n", c.subject, strings.Join(bound, ", "), suiteNames(cells), c.provider)
	if _, err := c.run.RunAll(ctx, cells, stdout, stderr); err != nil {
		return err
	}
	subjectCopy := filepath.Join("subject", filepath.Base(c.subject))
	if err := copyFile(c.subject, filepath.Join(c.run.Root, subjectCopy)); err != nil {
		return err
	}
	m := bundle.Manifest{Started: started, Created: time.Now().UTC(), Steadystate: steadystateVersion(), Provider: c.provider,
		Kubernetes: c.kubernetes, Subject: filepath.ToSlash(subjectCopy), Versions: subjectVersions(c.file)}
	var summary bytes.Buffer
	m.Passed = reports.WriteConformance(&summary, stem, [][2]string{
		{"subject file", filepath.Base(c.subject)}, {"steadystate", m.Steadystate},
		{"provider", c.provider + " (" + c.kubernetes + ")"}, {"run", m.Created.Format(time.RFC3339)},
	}, cells)
	if err := os.WriteFile(filepath.Join(c.run.Root, "summary.md"), summary.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\n", summary.String())
	m, err = bundle.Write(c.out, c.run.Root, m, func(rel string) bool { return rel == "bin" })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "conform: bundle %s (%d files), manifest digest sha256:%s\n", c.out, len(m.Files), m.Digest)
	fmt.Fprintf(stdout, "conform: publish the digest apart from the bundle; `steadystate verify --digest %s %s` checks the bundle against it and re-judges every verdict\n", m.Digest, c.out)
	if !m.Passed {
		return errors.New("the subject did not pass every suite its capabilities allow: see the summary above (broken: a finding; error: the harness or the subject's set-up)")
	}
	return nil
}

func suiteNames(cells []reports.Cell) string {
	var names []string
	for _, c := range cells {
		names = append(names, c.Suite)
	}
	return strings.Join(names, ", ")
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// steadystateVersion is this binary's module version and commit: from
// the build, or (go run stamps none) from the checkout it runs in.
func steadystateVersion() string {
	v, revision, modified := "unknown", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if revision == "" {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			revision = strings.TrimSpace(string(out))
			status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
			modified = err == nil && len(bytes.TrimSpace(status)) > 0
		}
	}
	if revision != "" {
		v += " " + revision
	}
	if modified {
		v += " (modified)"
	}
	return v
}

// subjectVersions identifies what the subject ran: the program of
// run.command and run.pod.binary by sha256, and run.pod.image by name.
func subjectVersions(f *subjectfile.File) map[string]string {
	out := map[string]string{}
	digest := func(key, path string) {
		if path == "" {
			return
		}
		f, err := os.Open(path)
		if err != nil {
			out[key] = path + " (not readable here: " + err.Error() + ")"
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			out[key] = path + " (not readable here: " + err.Error() + ")"
			return
		}
		out[key] = path + " sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	if len(f.Run.Command) > 0 {
		if prog, err := subjectfile.Expand(f.Run.Command[0], f.Static()); err == nil {
			digest("run.command", prog)
		}
	}
	if f.Run.Pod != nil {
		out["run.pod.image"] = f.Run.Pod.Image
		if bin, err := f.PodBinary(); err == nil {
			digest("run.pod.binary", bin)
		}
	}
	return out
}

// serverVersion names the existing cluster's Kubernetes version, for the
// manifest; a cluster that does not answer is the suites' to report.
func serverVersion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	p := existing.NewProvider("", "")
	defer p.Destroy(context.WithoutCancel(ctx))
	if _, err := p.Create(ctx); err != nil {
		return "existing cluster (version unknown: " + err.Error() + ")"
	}
	v, err := discovery.NewDiscoveryClientForConfigOrDie(p.KubernetesRestConfig()).ServerVersion()
	if err != nil {
		return "existing cluster (version unknown: " + err.Error() + ")"
	}
	return "existing cluster, Kubernetes " + v.GitVersion
}
