package scaffold

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// project copies testdata/project (a kubebuilder layout) into a fresh
// folder, with a manager in bin/ as if built.
func project(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "guestbook")
	if err := os.CopyFS(dir, os.DirFS("testdata/project")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "manager"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The draft of a kubebuilder project loads as a subject file as it is,
// binding only the steady-state capability with the project's samples and
// CRDs, and explains its fields in comments.
func TestKubebuilderDraftLoadsUnchanged(t *testing.T) {
	dir := project(t)
	p, err := Kubebuilder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "guestbook" || p.Main != "./cmd" || !p.Webhooks || strings.Join(p.Kinds, ",") != "Guestbook" {
		t.Errorf("read %+v", p)
	}
	out := filepath.Join(dir, "steadystate.yaml")
	var b bytes.Buffer
	if err := p.Write(&b, out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := subjectfile.Load(out, subjectfile.Options{})
	if err != nil {
		t.Fatalf("the draft does not load: %v\n%s", err, b.String())
	}
	if got := f.Capabilities.Bound(); strings.Join(got, ",") != "reconciledObjects" {
		t.Errorf("binds %v, want reconciledObjects alone", got)
	}
	if f.Name != "guestbook" || f.Run.Env["ENABLE_WEBHOOKS"] != "false" || f.Run.Env["GUESTBOOK_IMAGE"] != "guestbook:1.0" || len(f.Run.Env) != 2 {
		t.Errorf("name %q, env %v: want ENABLE_WEBHOOKS=false and manager.yaml's literal GUESTBOOK_IMAGE", f.Name, f.Run.Env)
	}
	if got := strings.Join(f.Run.Command[1:], " "); got != "--metrics-bind-address=0 --health-probe-bind-address=0 --guestbook-page-size=20" {
		t.Errorf("arguments %q: want probes off and manager.yaml's own argument, leader election left out", got)
	}
	objs, err := f.SteadyObjects(subjectfile.Vars{Namespace: "ns1"}, func(schema.GroupVersionKind) (bool, error) { return true, nil })
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "Guestbook" || objs[0].GetNamespace() != "ns1" {
		t.Errorf("objects %v, %v: want the one sample, kustomization.yaml left out", objs, err)
	}
	for _, want := range []string{"# Run it with: steadystate conform --subject", "  # needsNodes: true\n", "manifests:\n    - config/crd/bases/webapp.example.com_guestbooks.yaml", "(kinds: Guestbook)",
		"(their values come from the cluster): POD_NAMESPACE", "--leader-elect, --health-probe-bind-address=:8081"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the draft does not say %q:\n%s", want, b.String())
		}
	}
}

// What a kubebuilder layout lacks is named, with what belongs there.
func TestKubebuilderNamesWhatIsMissing(t *testing.T) {
	for _, tc := range []struct{ remove, want string }{
		{"config/crd/bases", "config/crd/bases: no YAML manifests; expected the CustomResourceDefinitions"},
		{"config/samples", "config/samples: no YAML manifests; expected at least one sample object"},
		{"cmd", "no cmd/main.go nor main.go"},
	} {
		dir := project(t)
		if err := os.RemoveAll(filepath.Join(dir, tc.remove)); err != nil {
			t.Fatal(err)
		}
		if _, err := Kubebuilder(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("without %s: %v; want %q", tc.remove, err, tc.want)
		}
	}
}

func TestFilesNeedsAProgramAndASample(t *testing.T) {
	if _, err := Files("x", "", nil, []string{"s.yaml"}); err == nil || !strings.Contains(err.Error(), "--command") {
		t.Errorf("no program: %v", err)
	}
	if _, err := Files("x", "/bin/true", nil, nil); err == nil || !strings.Contains(err.Error(), "--sample") {
		t.Errorf("no sample: %v", err)
	}
}

// A project without config/manager/manager.yaml drafts as before; one
// whose manager manifest has no manager container is named.
func TestKubebuilderManagerManifest(t *testing.T) {
	dir := project(t)
	if err := os.Remove(filepath.Join(dir, "config", "manager", "manager.yaml")); err != nil {
		t.Fatal(err)
	}
	p, err := Kubebuilder(dir)
	if err != nil || len(p.Manifest.Env)+len(p.Manifest.Args)+len(p.Manifest.Unresolved) != 0 {
		t.Errorf("without manager.yaml: %+v, %v", p.Manifest, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "manager", "manager.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: system}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Kubebuilder(dir); err == nil || !strings.Contains(err.Error(), "no Deployment with a container named manager") {
		t.Errorf("a manager.yaml with no Deployment: %v", err)
	}
}

// A project whose cmd/main.go is a stub for kubebuilder's layout (as some
// operators keep) builds its manager from the package its Dockerfile
// builds; a Dockerfile naming no package of the project is passed over.
func TestKubebuilderMainFromTheDockerfile(t *testing.T) {
	for _, tc := range []struct {
		dockerfile, main string
		fromDockerfile   bool
	}{
		{"FROM golang AS builder\nRUN go build -o mariadb-operator cmd/controller/*.go\n", "./cmd/controller", true},
		{"RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} go build -a -ldflags \"-s\" -o manager ./cmd/controller && cp manager /out\n", "./cmd/controller", true},
		{"RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -a -o manager cmd/main.go\n", "./cmd", true},
		{"RUN go build -o manager ./cmd/missing\n", "./cmd", false},
		// A commented-out build is no build; a continued line is read whole.
		{"# RUN go build -o manager cmd/main.go\nRUN CGO_ENABLED=0 go build -a \\\n    -o manager \\\n    ./cmd/controller\n", "./cmd/controller", true},
		// A tool of the image built first, from elsewhere, is passed over.
		{"RUN go build -o /usr/bin/dlv github.com/go-delve/delve/cmd/dlv\nRUN go build -o manager cmd/controller/main.go\n", "./cmd/controller", true},
		{"RUN go build -o /usr/bin/dlv github.com/go-delve/delve/cmd/dlv && go build -o manager ./cmd/controller\n", "./cmd/controller", true},
		// Another tool's build is no go build.
		{"RUN cargo build --release cmd/controller\n", "./cmd", false},
		{"RUN go build -o manager cmd/*/main.go\n", "./cmd", false},
		{"FROM scratch\n", "./cmd", false},
	} {
		dir := project(t)
		if err := os.MkdirAll(filepath.Join(dir, "cmd", "controller"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cmd", "controller", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(tc.dockerfile), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Kubebuilder(dir)
		if err != nil {
			t.Fatal(err)
		}
		if p.Main != tc.main || (p.MainFrom != "") != tc.fromDockerfile {
			t.Errorf("Dockerfile %q: main %q (%q), want %q", tc.dockerfile, p.Main, p.MainFrom, tc.main)
		}
	}
}

// The flags of Go's flag package and of cobra, as managers print them.
func TestFlagNames(t *testing.T) {
	for _, tc := range []struct{ file, metrics, health string }{
		{"testdata/help/flag.txt", "metrics-bind-address", "health-probe-bind-address"},
		{"testdata/help/cobra.txt", "metrics-addr", "health-addr"},
	} {
		help, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		names := flagNames(string(help))
		if !slices.Contains(names, "leader-elect") || slices.Contains(names, "") {
			t.Errorf("%s: names %v", tc.file, names)
		}
		if m, h := pickFlag(names, "metrics"), pickFlag(names, "health", "probe"); m != tc.metrics || h != tc.health {
			t.Errorf("%s: metrics %q, health %q; want %q, %q", tc.file, m, h, tc.metrics, tc.health)
		}
	}
	if m, h := pickFlag([]string{"metricsAddr", "healthProbePort"}, "metrics"), pickFlag([]string{"metricsAddr", "healthProbePort"}, "health", "probe"); m != "metricsAddr" || h != "healthProbePort" {
		t.Errorf("flags in camelCase: metrics %q, health %q", m, h)
	}
	if got := pickFlag([]string{"verbose", "kubeconfig"}, "metrics"); got != "" {
		t.Errorf("a manager with no metrics flag: %q", got)
	}
}

// The draft turns off the metrics and probes by the flags the manager
// lists, and leaves out manager.yaml's arguments for those flags and for
// webhooks when the project serves them; a manager that lists no flags
// keeps kubebuilder's names.
func TestDraftUsesTheManagersOwnFlags(t *testing.T) {
	dir := project(t)
	help, err := filepath.Abs("testdata/help/cobra.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "manager"), []byte("#!/bin/sh\ncat "+help+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "config", "manager", "manager.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("- --guestbook-page-size=20"), []byte("- --guestbook-page-size=20\n          - --metrics-addr=:8080\n          - --webhook\n          - --webhook-port=9443"), 1)
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := writeDraft(t, dir)
	f, err := subjectfile.Load(out, subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Run.Command[1:], " "); got != "--metrics-addr=0 --health-addr=0 --guestbook-page-size=20" {
		t.Errorf("arguments %q: want the manager's own metrics and health flags off, webhooks and the manifest's metrics address left out", got)
	}
	draft, _ := os.ReadFile(out)
	if want := "--leader-elect, --health-probe-bind-address=:8081, --webhook, --webhook-port=9443, --metrics-addr=:8080"; !strings.Contains(string(draft), want) {
		t.Errorf("the draft does not name what it left out, %q:\n%s", want, draft)
	}
}

// A manager whose --help leaves a child behind holding its output (or
// that does not know --help and starts) leaves nothing running after
// init: its process group is ended whole.
func TestReadFlagsLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	help, err := filepath.Abs("testdata/help/cobra.txt")
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "child.pid")
	manager := filepath.Join(dir, "manager")
	script := "#!/bin/sh\ncat " + help + "\nsleep 300 &\necho $! > " + pidFile + "\n"
	if err := os.WriteFile(manager, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Project{Manager: manager}
	p.readFlags(context.Background())
	if p.MetricsFlag != "metrics-addr" {
		t.Errorf("metrics flag %q, want the help's metrics-addr", p.MetricsFlag)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	// SIGKILL was sent before readFlags returned; the child is gone once
	// the kernel has delivered it (a zombie until its reaper takes it).
	gone := func(context.Context) (bool, error) {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return true, nil
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		return strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X"), nil
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, gone); err != nil {
		t.Errorf("the manager's child %s still runs after readFlags returned", pid)
	}
}

// A manager whose --help lists flags but none for a metrics or probe
// address is given none, and the draft says so rather than claim them off.
func TestDraftSaysWhatItCouldNotTurnOff(t *testing.T) {
	dir := project(t)
	if err := os.WriteFile(filepath.Join(dir, "bin", "manager"), []byte("#!/bin/sh\necho '  -leader-elect'\necho '  -zap-devel'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := writeDraft(t, dir)
	draft, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lists no flag for a metrics address", "lists no flag for a health probe address"} {
		if !strings.Contains(string(draft), want) {
			t.Errorf("the draft does not say %q:\n%s", want, draft)
		}
	}
	if strings.Contains(string(draft), "are turned off") {
		t.Errorf("the draft says metrics and probes are turned off with no flag for them:\n%s", draft)
	}
	if _, err := subjectfile.Load(out, subjectfile.Options{}); err != nil {
		t.Error(err)
	}
}

// writeDraft reads the kubebuilder project in dir and writes its draft
// (the manager in bin/ as it is), returning the draft's path.
func writeDraft(t *testing.T, dir string) string {
	t.Helper()
	p, err := Kubebuilder(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "steadystate.yaml")
	if err := p.WriteFile(context.Background(), out, true, io.Discard); err != nil {
		t.Fatal(err)
	}
	return out
}
