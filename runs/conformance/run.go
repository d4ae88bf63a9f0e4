package conformance

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/discovery"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/existing"
	"github.com/steadystate-dev/steadystate/cluster/kind"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// Run is a conformance run: every suite the subject file's capabilities
// allow, once, on one provider, into one results bundle.
type Run struct {
	// Subject is the subject file (absolute), Out the bundle to write.
	Subject, Out string
	// Provider is local, kind or existing; Kubernetes names what the
	// subject ran on, for the manifest (a local cluster's simulated nodes
	// too, once Load has read the subject file).
	Provider, Kubernetes string
	// Version and BinDir are the local control plane's (KUBE_VERSION,
	// KUBE_BIN_DIR or the cache's folder for the version); BuildBins
	// says the cache's must be built first if they are not.
	Version, BinDir string
	BuildBins       bool
	// Pods says the subject runs in pods (kind, SUBJECT_PLACEMENT=pods).
	Pods bool
	// UpstreamDir is the folder of the upstream releases a subject file
	// may name ({{.UpstreamDir}}).
	UpstreamDir string
	// Matrix runs the suites, each a cell, below its Root.
	Matrix matrix.Run
	// Only, when set, names the bound capabilities whose suites run (the
	// others are left out, and the bundle's manifest says so); empty runs
	// every bound one.
	Only []string
	// FailOnGaps makes a pass with gaps (PASSED WITH GAPS) fail, with
	// its own exit code (cli.ExitGaps).
	FailOnGaps bool

	file *subjectfile.File
	// localNodes is LOCAL_NODES as set, for the nodes a subject file
	// needs (cluster.NodesFor).
	localNodes string
}

// New is the conformance run of the subject file subject on provider,
// writing the bundle out (empty: conformance.tar.gz beside the runs), of
// the settings e: the runs go below ARTIFACTS/conform, and the local
// control plane and the upstream releases are KUBE_VERSION's, KUBE_BIN_DIR
// and UPSTREAM_DIR, or the cache's.
func New(e config.Settings, subject, out, provider string) (Run, error) {
	c := Run{Subject: subject, Out: out, Provider: cmp.Or(provider, cluster.Local)}
	if !slices.Contains(cluster.Providers, c.Provider) {
		return c, fmt.Errorf("--provider %s: conform runs on local (a control plane of processes here), kind (the controller in pods) or existing (the cluster of $KUBECONFIG, or the one this pod runs in)", c.Provider)
	}
	var err error
	if c.Matrix, err = matrix.New(e, "conform", "conformance", "CONFORM", 2); err != nil {
		return c, err
	}
	if c.Out == "" {
		c.Out = filepath.Join(filepath.Dir(c.Matrix.Root), "conformance.tar.gz")
	}
	if c.Subject, err = filepath.Abs(c.Subject); err != nil {
		return c, err
	}
	// The cache holds the upstream releases and the local control plane:
	// a run in a pod, on an existing cluster, may have neither.
	c.UpstreamDir, _ = e.UpstreamRoot()
	c.Version, c.BinDir = e.KubeVersion, e.KubeBinDir
	c.BuildBins = c.Provider == cluster.Local && c.BinDir == ""
	if root, err := e.CacheRoot(); c.BinDir == "" && err == nil {
		c.BinDir = local.BinDirFor(root, c.Version)
	}
	c.Kubernetes = c.Version
	switch c.Provider {
	case cluster.Kind:
		c.Kubernetes = cmp.Or(e.KindNodeImage, kind.DefaultImage(c.Version))
	case cluster.Existing:
		c.Kubernetes = "existing cluster"
	}
	c.Matrix.Provider = c.Provider
	c.Matrix.Progress = true
	// Every spec keeps its evidence, passed or not: the bundle's every
	// judged verdict can then be judged again (steadystate verify).
	c.Matrix.Env = append(c.Matrix.Env, "PROVIDER="+c.Provider, "UPSTREAM_DIR="+c.UpstreamDir, "STEADYSTATE_KEEP_EVIDENCE=1")
	c.Pods = c.Provider == cluster.Kind || e.SubjectPlacement == config.PlacementPods
	c.localNodes = e.LocalNodes
	return c, nil
}

// Load reads the subject file, once the local control plane it may name
// ({{.KubeBinDir}}) is built, and refuses one that cannot run where the
// run places it: a subject file refused is input refused (cli.ErrInput),
// a build that failed a harness error.
func (c *Run) Load(ctx context.Context, stderr io.Writer) error {
	// A path that is wrong is said before minutes of building.
	f, err := os.Open(c.Subject)
	if err != nil {
		return cli.Mark(cli.ErrInput, fmt.Errorf("subject file: %w (--subject names the YAML file that describes the controller; see fixtures/subjects for examples)", err))
	}
	f.Close()
	if c.BuildBins {
		// Everything but the programs it names is checked before
		// minutes of building: a file no suite can use is said at once.
		pre := subjectfile.Options{UpstreamDir: c.UpstreamDir, KubeBinDir: c.BinDir, FromImage: true}
		if _, err := subjectfile.Load(c.Subject, pre); err != nil {
			return cli.Mark(cli.ErrInput, err)
		}
		if _, err := local.BuildBinaries(ctx, c.Version, stderr); err != nil {
			return cli.Mark(cli.ErrHarness, err)
		}
	}
	// As the suites decide (the suites' Config.FromImage): in pods on an
	// existing cluster, the controller starts from its image as it is.
	o := subjectfile.Options{UpstreamDir: c.UpstreamDir, KubeBinDir: c.BinDir, FromImage: c.Pods && c.Provider == cluster.Existing}
	if c.file, err = subjectfile.Load(c.Subject, o); err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if c.Pods && c.file.Run.Pod == nil {
		return cli.Mark(cli.ErrInput, fmt.Errorf("subject file %s has no run.pod: on --provider %s the controller runs in pods; add run.pod, or use --provider local", c.Subject, c.Provider))
	}
	nodes, err := cluster.NodesFor(c.Subject, c.Provider, c.localNodes, c.file.Run.NeedsNodes, c.file.PodMaker())
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if nodes.TurnOn {
		c.Matrix.Env = append(c.Matrix.Env, "LOCAL_NODES=on")
		fmt.Fprintln(stderr, "conform: "+nodes.Said)
	}
	if nodes.Warning != "" {
		fmt.Fprintln(stderr, "conform: warning: "+nodes.Warning)
	}
	// The bundle says where the pods ran: a local cluster with simulated
	// nodes is another place than one where every pod stays Pending.
	if nodes.Count > 0 {
		c.Kubernetes += fmt.Sprintf(", %d simulated nodes", nodes.Count)
	}
	bound := c.file.Capabilities.Bound()
	for _, o := range c.Only {
		if !slices.Contains(bound, o) {
			return cli.Mark(cli.ErrInput, fmt.Errorf("--capabilities %s: subject file %s does not bind it; expected some of %s", o, c.Subject, strings.Join(bound, ", ")))
		}
	}
	return nil
}

// Run runs every suite the loaded subject file's capabilities allow
// against it, once, and writes one results bundle with a summary
// (Conclude). It fails, marked with the result's kind (reports.Kind), when
// the result is NOT PASSED (a finding) or ERROR, and, with FailOnGaps,
// PASSED WITH GAPS; the last line it prints is the result.
func (c *Run) Run(ctx context.Context, stdout, stderr io.Writer) error {
	bound, run, _ := c.capabilities()
	var cells []reports.Cell
	for _, s := range catalog.Suites {
		if slices.Contains(run, s.Capability) {
			cells = append(cells, reports.Cell{Suite: s.Name, Subject: c.file.Name, SubjectFile: c.Subject, MaySkip: true, Conformance: true})
		}
	}
	if c.Provider == cluster.Existing {
		c.Kubernetes = ServerVersion(ctx)
	}
	// The bundle holds this run only: every report and evidence file in
	// it is from after started.
	started := time.Now().UTC()
	if err := os.RemoveAll(c.Matrix.Root); err != nil {
		return err
	}
	only := ""
	if len(c.Only) > 0 {
		only = " (--capabilities " + strings.Join(c.Only, ",") + ")"
	}
	fmt.Fprintf(stderr, "conform: %s binds %s%s: suites %s on %s\n", c.Subject, strings.Join(bound, ", "), only, suiteNames(cells), c.Provider)
	if _, err := c.Matrix.RunAll(ctx, cells, stdout, stderr); err != nil {
		return cli.Mark(cli.ErrHarness, err)
	}
	return c.Conclude(cells, started, stdout)
}

// capabilities are the capabilities the loaded subject file binds, those
// whose suites run (--capabilities, else every bound one), and the bound
// ones left out, which are the run's gaps: their properties are not
// judged.
func (c *Run) capabilities() (bound, run, notRun []string) {
	bound = c.file.Capabilities.Bound()
	run = bound
	if len(c.Only) > 0 {
		run = c.Only
	}
	for _, b := range bound {
		if !slices.Contains(run, b) {
			notRun = append(notRun, b)
		}
	}
	return bound, run, notRun
}

// Conclude writes the bundle of a run whose cells ran below Matrix.Root
// from started, with its summary; prints the summary, the manifest's
// digest and, last, the result; and is the run's failure, as Run says.
func (c *Run) Conclude(cells []reports.Cell, started time.Time, stdout io.Writer) error {
	bound, _, notRun := c.capabilities()
	// The subject's own name, not its file's: a Job's file is always
	// subject.yaml.
	stem := c.file.Name
	// The bundle keeps the subject file with its secrets hidden (Secrets'
	// values, secret-looking environment values): the manifest's sums,
	// and so the published digest, are the redacted copy's.
	subjectCopy := filepath.Join("subject", filepath.Base(c.Subject))
	if err := writeRedacted(c.file, filepath.Join(c.Matrix.Root, subjectCopy)); err != nil {
		return err
	}
	m := bundle.Manifest{Started: started, Created: time.Now().UTC(), Steadystate: SteadystateVersion(), Provider: c.Provider,
		Kubernetes: c.Kubernetes, Subject: filepath.ToSlash(subjectCopy), Versions: subjectVersions(c.file), Capabilities: c.Only, Bound: bound}
	var summary bytes.Buffer
	rows := [][2]string{
		{"subject file", filepath.Base(c.Subject)}, {"steadystate", m.Steadystate},
		{"provider", c.Provider + " (" + c.Kubernetes + ")"}, {"run", m.Created.Format(time.RFC3339)},
	}
	if len(c.Only) > 0 {
		rows = append(rows, [2]string{"capabilities", strings.Join(c.Only, ", ") + " only, of " + strings.Join(bound, ", ")})
	}
	m.Passed = reports.WriteConformance(&summary, stem, rows, cells, notRun...)
	if err := os.WriteFile(filepath.Join(c.Matrix.Root, "summary.md"), summary.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\n", summary.String())
	m, err := bundle.Write(c.Out, c.Matrix.Root, m, func(rel string) bool { return rel == "bin" })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "conform: bundle %s (%d files), manifest digest sha256:%s\n", c.Out, len(m.Files), m.Digest)
	fmt.Fprintf(stdout, "conform: publish the digest apart from the bundle; `steadystate verify --digest %s %s` checks the bundle against it and re-judges every verdict\n", m.Digest, c.Out)
	word, detail := reports.ConformanceResult(cells, notRun...)
	fmt.Fprintf(stdout, "conform: %s\n", reports.Line(word, detail))
	return reports.Fail(word, c.FailOnGaps, failure(word, detail))
}

// failure says why a run whose result is word failed.
func failure(word, detail string) string {
	switch word {
	case reports.ResultNotPassed:
		return "the subject did not pass: a property broke (a finding; see the summary above)"
	case reports.ResultWithGaps:
		return "the subject passed with gaps (" + detail + ") and --fail-on-gaps fails that"
	}
	return "the run ended in an error or judged nothing, which is no finding: the harness or the subject's set-up failed (see the summary above); run it again"
}

func suiteNames(cells []reports.Cell) string {
	var names []string
	for _, c := range cells {
		names = append(names, c.Suite)
	}
	return strings.Join(names, ", ")
}

// writeRedacted writes the subject file f, redacted
// (subjectfile.Redact), to to.
func writeRedacted(f *subjectfile.File, to string) error {
	data, err := f.RedactedCopy()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// SteadystateVersion is this binary's module version and commit: from
// the build's stamp, or, for a binary that carries none (go run, or
// -buildvcs=false), the HEAD of the checkout its source was compiled
// from as it runs, said so, since that may have moved since the build;
// never from the folder it happens to run in (a subject's own checkout
// would lend its commit).
func SteadystateVersion() string {
	v, revision, modified, stamped := "unknown", "", false, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision, stamped = s.Value, true
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if _, file, _, ok := runtime.Caller(0); revision == "" && ok {
		src := filepath.Dir(filepath.Dir(filepath.Dir(file))) // the module's root: this file is runs/conformance/run.go
		if _, err := os.Stat(filepath.Join(src, "go.mod")); err == nil {
			if out, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output(); err == nil {
				revision = strings.TrimSpace(string(out))
				status, err := exec.Command("git", "-C", src, "status", "--porcelain", "--untracked-files=no").Output()
				modified = err == nil && len(bytes.TrimSpace(status)) > 0
			}
		}
	}
	if revision != "" {
		v += " " + revision
	}
	if modified {
		v += " (modified)"
	}
	if revision != "" && !stamped {
		v += " (the checkout's HEAD when it ran: the binary carries no build stamp)"
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
		// A wrapper (sh -c "... exec bin/manager ...") hides the program
		// that is the subject: each word of its arguments that names an
		// executable file is digested too.
		for _, arg := range f.Run.Command[1:] {
			for _, word := range strings.Fields(arg) {
				path, err := subjectfile.Expand(word, f.Static())
				if err != nil || !strings.Contains(path, "/") {
					continue
				}
				if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
					digest("run.command program "+path, path)
				}
			}
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

// ServerVersion names the existing cluster's Kubernetes version, for the
// manifest; a cluster that does not answer is the suites' to report.
func ServerVersion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	p := existing.NewProvider("", "")
	defer func() { _ = p.Destroy(context.WithoutCancel(ctx)) }() // removes the kubeconfig it wrote, if any
	if _, err := p.Create(ctx); err != nil {
		return "existing cluster (version unknown: " + err.Error() + ")"
	}
	v, err := discovery.NewDiscoveryClientForConfigOrDie(p.KubernetesRestConfig()).ServerVersion()
	if err != nil {
		return "existing cluster (version unknown: " + err.Error() + ")"
	}
	return "existing cluster, Kubernetes " + v.GitVersion
}
