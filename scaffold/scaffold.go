package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/template"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// Project is what a subject file is drafted from: where the controller's
// CRDs and sample objects are, and how its manager is started.
type Project struct {
	// Dir is the project's folder (absolute).
	Dir string
	// Name names the subject: the kubebuilder PROJECT file's projectName,
	// else the folder's name.
	Name string
	// CRDs and Samples are manifest files, absolute.
	CRDs, Samples []string
	// Kinds are the kinds the CRDs define, for the readiness comment.
	Kinds []string
	// Manager is the manager's program, and Main the package it is built
	// from ("" when the program was given); MainFrom says how Main was
	// found when not by kubebuilder's layout (the project's Dockerfile).
	Manager, Main, MainFrom string
	// MetricsFlag and HealthFlag are the manager's flags for the metrics
	// and health probe addresses, set to 0 in the draft (several replicas
	// share one host): kubebuilder's names, unless the manager's --help
	// lists others (readFlags), "" when it lists flags and none of the kind.
	MetricsFlag, HealthFlag string
	// FlagsFrom says the flags were read from the manager's --help.
	FlagsFrom bool
	// Webhooks says the project has config/webhook: the draft turns them
	// off (kubebuilder's ENABLE_WEBHOOKS=false).
	Webhooks bool
	// Manifest is what config/manager/manager.yaml gives the manager's
	// container (empty without that file).
	Manifest Container
}

// Container is what a kubebuilder project's manager manifest gives its
// manager container: the environment and arguments a local run carries
// over, and what it cannot.
type Container struct {
	// Env are the variables with a literal value, in the manifest's order.
	Env []corev1.EnvVar
	// Args are the arguments a local run passes on, in order.
	Args []string
	// Unresolved names the variables whose value comes from the cluster
	// (valueFrom: a field, a Secret, a ConfigMap) or a whole envFrom source.
	Unresolved []string
	// Dropped are the arguments a local run replaces: leader election (the
	// leader suite binds it on its own), metrics and health probes (several
	// replicas share one host).
	Dropped []string
}

// Kubebuilder reads a kubebuilder project's layout in dir: the CRDs in
// config/crd/bases, the samples in config/samples (without
// kustomization.yaml), the manager's main package (cmd/, else the root),
// and PROJECT's name. What is missing is an error naming the path and what
// was expected there.
func Kubebuilder(dir string) (Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Project{}, err
	}
	p := Project{Dir: abs, Name: filepath.Base(abs), MetricsFlag: kubebuilderMetrics, HealthFlag: kubebuilderHealth}
	if data, err := os.ReadFile(filepath.Join(abs, "PROJECT")); err == nil {
		var meta struct {
			ProjectName string `json:"projectName"`
		}
		if yaml.Unmarshal(data, &meta) == nil && meta.ProjectName != "" {
			p.Name = meta.ProjectName
		}
	}
	if p.CRDs, err = manifests(abs, "config/crd/bases", "the CustomResourceDefinitions the controller reconciles (controller-gen writes them there)"); err != nil {
		return Project{}, err
	}
	if p.Samples, err = manifests(abs, "config/samples", "at least one sample object of those kinds (kubebuilder's config/samples)"); err != nil {
		return Project{}, err
	}
	if main := dockerfileMain(abs); main != "" {
		p.Main, p.MainFrom = main, "the package the project's Dockerfile builds"
	}
	for _, main := range []string{"cmd", "."} {
		if p.Main != "" {
			break
		}
		if _, err := os.Stat(filepath.Join(abs, main, "main.go")); err == nil {
			p.Main = "./" + strings.TrimPrefix(main, ".")
		}
	}
	if p.Main == "" {
		return Project{}, fmt.Errorf("%s: no cmd/main.go nor main.go; expected the manager's main package of a kubebuilder project", abs)
	}
	p.Main = strings.TrimSuffix(p.Main, "/")
	if p.Main == "." || p.Main == "./" {
		p.Main = "."
	}
	p.Manager = filepath.Join(abs, "bin", "manager")
	if _, err := os.Stat(filepath.Join(abs, "config", "webhook")); err == nil {
		p.Webhooks = true
	}
	if p.Kinds, err = subjectfile.DefinedKinds(p.CRDs); err != nil {
		return Project{}, err
	}
	if p.Manifest, err = managerContainer(filepath.Join(abs, "config", "manager", "manager.yaml")); err != nil {
		return Project{}, err
	}
	if p.Webhooks {
		// The draft sets kubebuilder's webhook switch itself, and leaves
		// out the arguments that would serve webhooks another way.
		p.Manifest.Env = slices.DeleteFunc(p.Manifest.Env, func(e corev1.EnvVar) bool { return e.Name == "ENABLE_WEBHOOKS" })
		p.Manifest.drop(func(name string) bool { return strings.Contains(name, "webhook") })
	}
	return p, nil
}

// dockerfileMain is the main package the project's Dockerfile builds (the
// last package or file argument of its first go build of a package of the
// project), as ./dir or "."; "" without a Dockerfile or such a go build. A
// project whose cmd/main.go is a stub for kubebuilder's layout builds its
// manager from elsewhere, and its Dockerfile says where. Comments are
// passed over, a line continued with a backslash is read whole, and a go
// build of a program from elsewhere (a tool of the image) is passed over.
func dockerfileMain(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if err != nil {
		return ""
	}
	var lines []string
	joined := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			continue // a comment, also between continued lines
		}
		if cont, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), "\\"); ok {
			joined += cont + " "
			continue
		}
		lines = append(lines, joined+line)
		joined = ""
	}
	lines = append(lines, joined)
	for _, line := range lines {
		if pkg := goBuildPackage(dir, line); pkg != "" {
			return pkg
		}
	}
	return ""
}

// goBuildPackage is the package of dir that a go build command of line
// builds, the first of them that builds one, as dockerfileMain says it;
// "" for none.
func goBuildPackage(dir, line string) string {
	for rest := line; ; {
		i := strings.Index(rest, "go build")
		if i < 0 {
			return ""
		}
		after := rest[i+len("go build"):]
		// "go build" as a command: not the end of another word (cargo
		// build), and followed by its arguments or nothing.
		if (i == 0 || strings.ContainsRune(" \t;&|(`\"'", rune(rest[i-1]))) && (after == "" || after[0] == ' ' || after[0] == '\t') {
			if pkg := buildTarget(dir, after); pkg != "" {
				return pkg
			}
		}
		rest = after
	}
}

// buildTarget is the package of dir that a go build with the arguments
// build (up to the end of its shell command) builds; "" for none.
func buildTarget(dir, build string) string {
	for _, sep := range []string{"&&", ";", "||", "|"} {
		build, _, _ = strings.Cut(build, sep)
	}
	fields := strings.Fields(build)
	target := ""
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case slices.Contains([]string{"-o", "-ldflags", "-tags", "-gcflags", "-asmflags", "-mod", "-modfile", "-p", "-pkgdir", "-overlay", "-buildmode", "-installsuffix", "-C", "-pgo", "-toolexec", "-compiler", "-gccgoflags", "-coverpkg", "-covermode"}, f):
			i++ // a flag's value
		case strings.HasPrefix(f, "-"):
		default:
			target = strings.Trim(f, `"'`)
		}
	}
	if target == "" {
		return ""
	}
	pkg := target
	if strings.HasSuffix(target, ".go") {
		pkg = filepath.Dir(target)
	}
	pkg = filepath.Clean(pkg)
	if filepath.IsAbs(pkg) || strings.HasPrefix(pkg, "..") || strings.ContainsAny(pkg, "*?[") {
		return ""
	}
	if goFiles, _ := filepath.Glob(filepath.Join(dir, pkg, "*.go")); len(goFiles) == 0 {
		return ""
	}
	if pkg == "." {
		return "."
	}
	return "./" + filepath.ToSlash(pkg)
}

// kubebuilder's flags for the metrics and health probe addresses.
const (
	kubebuilderMetrics = "metrics-bind-address"
	kubebuilderHealth  = "health-probe-bind-address"
)

// drop moves the arguments whose flag name (without dashes and value)
// matches out of c.Args into c.Dropped.
func (c *Container) drop(match func(name string) bool) {
	var kept []string
	for _, a := range c.Args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && match(name) {
			c.Dropped = append(c.Dropped, a)
			continue
		}
		kept = append(kept, a)
	}
	c.Args = kept
}

// readFlags asks the manager for its flags (its --help, for at most 10
// s) and takes from them the ones for the metrics and health probe
// addresses, which the draft turns off; a manager that lists no flags
// keeps kubebuilder's names. The manager's arguments carried over from its
// manifest lose those flags too.
func (p *Project) readFlags(ctx context.Context) {
	if _, err := os.Stat(p.Manager); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Manager, "--help")
	// No cluster to reach: neither a kubeconfig nor, in a pod, the
	// in-cluster one.
	cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent", "KUBERNETES_SERVICE_HOST=", "KUBERNETES_SERVICE_PORT=")
	cmd.WaitDelay = time.Second // a child left holding its output does not hold init
	// Its own process group, ended whole: a manager that does not know
	// --help and starts, or leaves a child behind, leaves nothing running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, _ := cmd.CombinedOutput() // flag and cobra exit 0 or 2 on --help; the text is what counts
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
	}
	names := flagNames(string(out))
	if len(names) == 0 {
		return
	}
	p.MetricsFlag = pickFlag(names, "metrics")
	p.HealthFlag = pickFlag(names, "health", "probe")
	p.FlagsFrom = true
	p.Manifest.drop(func(name string) bool { return name != "" && (name == p.MetricsFlag || name == p.HealthFlag) })
}

// flagNames are the flag names (without dashes) a program's --help text
// lists: Go's flag package ("  -name value") and pflag's and cobra's
// ("  -n, --name string") alike.
func flagNames(help string) []string {
	var names []string
	for _, line := range strings.Split(help, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "-") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if !strings.HasPrefix(f, "-") {
				break
			}
			name, _, _ := strings.Cut(strings.TrimRight(strings.TrimLeft(f, "-"), ","), "=")
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// pickFlag is the first of names that names any of topics and an address
// (addr, address or port): kubebuilder's name when listed, "" for none.
func pickFlag(names []string, topics ...string) string {
	for _, want := range []string{kubebuilderMetrics, kubebuilderHealth} {
		for _, t := range topics {
			if strings.Contains(want, t) && slices.Contains(names, want) {
				return want
			}
		}
	}
	for _, n := range names {
		l := strings.ToLower(n) // metricsAddr as well as metrics-addr
		addr := strings.Contains(l, "addr") || strings.HasSuffix(l, "port")
		for _, t := range topics {
			if addr && strings.Contains(l, t) {
				return n
			}
		}
	}
	return ""
}

// droppedArgs are the manager flags a local run sets itself or leaves off.
var droppedArgs = []string{"--leader-elect", "--metrics-bind-address", "--health-probe-bind-address", "--metrics-secure"}

// managerContainer reads the manager's container from a kubebuilder
// manager manifest (a Deployment, in a file that may hold other objects):
// its container named "manager", else its only one. No file is no
// container; a file with no such Deployment is an error naming it.
func managerContainer(file string) (Container, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Container{}, nil
	} else if err != nil {
		return Container{}, err
	}
	var found *corev1.Container
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		var d appsv1.Deployment
		if err := yaml.Unmarshal(doc, &d); err != nil {
			return Container{}, fmt.Errorf("%s: %w", file, err)
		}
		if d.Kind != "Deployment" {
			continue
		}
		cs := d.Spec.Template.Spec.Containers
		for i := range cs {
			if cs[i].Name == "manager" || len(cs) == 1 {
				found = &cs[i]
			}
		}
	}
	if found == nil {
		return Container{}, fmt.Errorf("%s: no Deployment with a container named manager; expected kubebuilder's manager manifest, or remove the file", file)
	}
	var c Container
	for _, e := range found.Env {
		if e.ValueFrom != nil {
			c.Unresolved = append(c.Unresolved, e.Name)
			continue
		}
		c.Env = append(c.Env, corev1.EnvVar{Name: e.Name, Value: e.Value})
	}
	for _, from := range found.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			c.Unresolved = append(c.Unresolved, "envFrom ConfigMap "+from.ConfigMapRef.Name)
		case from.SecretRef != nil:
			c.Unresolved = append(c.Unresolved, "envFrom Secret "+from.SecretRef.Name)
		}
	}
	for _, a := range found.Args {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(droppedArgs, name) {
			c.Dropped = append(c.Dropped, a)
			continue
		}
		c.Args = append(c.Args, a)
	}
	return c, nil
}

// Files drafts a project from CRD and sample files and a manager program
// (not a kubebuilder layout).
func Files(name, manager string, crds, samples []string) (Project, error) {
	p := Project{Name: name, Manager: manager, MetricsFlag: kubebuilderMetrics, HealthFlag: kubebuilderHealth}
	if p.Manager == "" {
		return Project{}, errors.New("no manager program: give the controller's program (--command)")
	}
	if len(samples) == 0 {
		return Project{}, errors.New("no sample objects: give at least one manifest of an object the controller reconciles (--sample)")
	}
	for _, set := range []*[]string{&crds, &samples} {
		for i, f := range *set {
			abs, err := filepath.Abs(f)
			if err != nil {
				return Project{}, err
			}
			if _, err := os.Stat(abs); err != nil {
				return Project{}, fmt.Errorf("%s: %w", f, err)
			}
			(*set)[i] = abs
		}
	}
	p.CRDs, p.Samples = crds, samples
	var err error
	p.Kinds, err = subjectfile.DefinedKinds(crds)
	return p, err
}

// manifests lists the YAML files of dir/rel, kustomization.yaml aside; none
// is an error naming the folder and what belongs there.
func manifests(dir, rel, what string) ([]string, error) {
	var out []string
	for _, ext := range []string{"*.yaml", "*.yml"} {
		files, err := filepath.Glob(filepath.Join(dir, rel, ext))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if !strings.HasPrefix(filepath.Base(f), "kustomization.") {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no YAML manifests; expected %s", filepath.Join(dir, rel), what)
	}
	slices.Sort(out)
	return out, nil
}

// Write writes the drafted subject file, to be saved at out (paths in it
// are relative to out's folder), with every field explained.
func (p Project) Write(w io.Writer, out string) error {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	rel := func(f string) string {
		if r, err := filepath.Rel(filepath.Dir(outAbs), f); err == nil {
			return filepath.ToSlash(r)
		}
		return f
	}
	data := map[string]any{"P": p, "Kinds": strings.Join(p.Kinds, ", ")}
	var crds, samples []string
	for _, f := range p.CRDs {
		crds = append(crds, rel(f))
	}
	for _, f := range p.Samples {
		samples = append(samples, rel(f))
	}
	data["CRDs"], data["Samples"] = crds, samples
	return draft.Execute(w, data)
}

var draft = template.Must(template.New("subject").Funcs(template.FuncMap{"q": func(s string) string {
	b, _ := yaml.Marshal(s)
	return strings.TrimSpace(string(b))
}, "join": func(s []string) string { return strings.Join(s, ", ") }}).Parse(`# A subject file drafted by ` + "`steadystate init`" + `{{if .P.Dir}} from the project in {{.P.Dir}}{{end}}.
# Run it with: steadystate conform --subject <this file>
# Every field is in docs/subject-file-reference.md; what each suite does is in docs/.
apiVersion: steadystate.dev/v1alpha3
kind: Subject
# The subject's name in results, artifacts and replica names.
name: {{q .P.Name}}
run:
  # One process per replica, started with KUBECONFIG pointing at the replica's fault proxy,
  # so every request and event the controller sees goes through the harness.{{if .P.Main}}
  # The manager is built from {{.P.Main}} into bin/manager{{with .P.MainFrom}}
  # ({{.}}){{end}}; init built it: rebuild it after changing the code with
  # go build -o bin/manager {{.P.Main}}.{{end}}{{if or .P.MetricsFlag .P.HealthFlag}}
  # Metrics and health probes are turned off: several replicas run on one host{{if .P.FlagsFrom}}
  # (the flags as the manager's --help lists them){{end}}.{{end}}{{if not .P.MetricsFlag}}
  # Its --help lists no flag for a metrics address: if it serves metrics on a fixed port,
  # the replicas collide; turn them off here.{{end}}{{if not .P.HealthFlag}}
  # Its --help lists no flag for a health probe address: if it serves probes on a fixed
  # port, the replicas collide; turn them off here.{{end}}{{with .P.Manifest.Args}}
  # The arguments after those are config/manager/manager.yaml's.{{end}}{{with .P.Manifest.Dropped}}
  # Left out of manager.yaml's arguments (leader election is the leader suite's to bind;
  # metrics, probes and webhooks are off): {{join .}}.{{end}}
  command:
    - {{q .P.Manager}}{{with .P.MetricsFlag}}
    - --{{.}}=0{{end}}{{with .P.HealthFlag}}
    - --{{.}}=0{{end}}{{range .P.Manifest.Args}}
    - {{q .}}{{end}}{{if .P.Webhooks}}
  # The project serves webhooks; they are off here (kubebuilder's switch), so the
  # controller runs without certificates. Bind {{"{{"}}.CertDir{{"}}"}} and {{"{{"}}.Port{{"}}"}} to test them.{{end}}{{if .P.Manifest.Env}}
  # The manager's environment from config/manager/manager.yaml.{{end}}{{with .P.Manifest.Unresolved}}
  # Not carried over from manager.yaml (their values come from the cluster): {{join .}}.
  # Give each a value here if the manager needs it.{{end}}{{if or .P.Webhooks .P.Manifest.Env}}
  env:{{range .P.Manifest.Env}}
    {{q .Name}}: {{q .Value}}{{end}}{{if .P.Webhooks}}
    ENABLE_WEBHOOKS: "false"{{end}}{{end}}
  # Uncomment when the pods the controller makes (its Deployments, StatefulSets, Jobs) must
  # run for its objects to become ready: the local cluster then gets simulated nodes.
  # needsNodes: true
  # Applied before the controller starts, in order: its CustomResourceDefinitions.
  manifests:{{range .CRDs}}
    - {{q .}}{{else}} []{{end}}
capabilities:
  # The reconcile suite: it applies the objects into a fresh namespace, waits until they
  # and everything they own are ready, watches that the controller then goes quiet, restarts
  # it right after its first write, deletes everything and checks nothing is left behind.
  reconciledObjects:
    # What the controller reconciles: the project's samples (templates of {{"{{"}}.Namespace{{"}}"}};
    # each object goes into the spec's namespace).
    objects:{{range .Samples}}
      - {{q .}}{{end}}
    # Later changes, applied one at a time once the state has settled: add a patch, a
    # scale or a delete of one of the objects to test how the controller follows a change.
    # - patch: {object: {kind: Kind, name: name}, merge: {spec: {field: value}}}
    changes: []
    # Ready is decided by Kubernetes' status conventions (kstatus): an object with
    # status.observedGeneration and a Ready condition is ready when both say so. A kind
    # that follows no convention needs an override here{{if .Kinds}} (kinds: {{.Kinds}}){{end}}:
    # - {kind: Kind, path: status.phase, value: Running}
    readiness:
      overrides: []
`))

// Build compiles the project's manager into p.Manager (go build of
// p.Main in p.Dir), saying so on progress; a project whose program was
// given is not built.
func (p Project) Build(ctx context.Context, progress io.Writer) error {
	if p.Main == "" {
		return nil
	}
	fmt.Fprintf(progress, "init: building the manager: go build -o %s %s (in %s; minutes when cold)\n", p.Manager, p.Main, p.Dir)
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", p.Manager, p.Main)
	cmd.Dir = p.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the manager (go build -o %s %s in %s): %v\n%s", p.Manager, p.Main, p.Dir, err, out)
	}
	fmt.Fprintf(progress, "init: built the manager in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// WriteFile writes the draft to out, building the manager first unless
// noBuild; an existing out is never overwritten.
func (p Project) WriteFile(ctx context.Context, out string, noBuild bool, progress io.Writer) error {
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists: init never overwrites a subject file; give another --out, or remove it", out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if !noBuild {
		if err := p.Build(ctx, progress); err != nil {
			return err
		}
	}
	p.readFlags(ctx)
	var b bytes.Buffer
	if err := p.Write(&b, out); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}
