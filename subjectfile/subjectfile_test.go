package subjectfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

const leader = `
apiVersion: steadystate.dev/v1alpha1
kind: Subject
name: my-manager
run:
  command: [/bin/true, "--kubeconfig={{.Kubeconfig}}", "--id={{.Identity}}", "--lease-namespace={{.Namespace}}"]
capabilities:
  leaderElected:
    lease: {name: my-manager, namespace: "{{.Namespace}}"}
    leaseDuration: 3s
    retryPeriod: 500ms
`

// writeFile writes a file of a test's set-up, failing the test if it cannot.
func writeFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func TestBuiltInReplicaSetFileIsValid(t *testing.T) {
	data, err := fixtures.Subjects.ReadFile("subjects/replicaset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "kube-controller-manager"), "#!/bin/sh\n", 0o755)
	f, err := subjectfile.Parse(data, "replicaset.yaml", subjectfile.Options{KubeBinDir: bin})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Capabilities.ScalableWorkload
	if s == nil || s.ExpectationTimeout.Duration != 5*time.Minute || f.Capabilities.LeaderElected != nil {
		t.Fatalf("bindings = %+v", f.Capabilities)
	}
	if s.ReplaceWithin.Duration != subjectfile.DefaultReplaceWithin {
		t.Errorf("replaceWithin default = %s, want %s", s.ReplaceWithin, subjectfile.DefaultReplaceWithin)
	}
	if got := f.Capabilities.Bound(); !slices.Equal(got, []string{"scalableWorkload"}) {
		t.Errorf("bound capabilities %v", got)
	}
	cmd, err := f.Command(subjectfile.Vars{Kubeconfig: "/tmp/k", KubeBinDir: "/opt/bin"})
	if err != nil || cmd[0] != "/opt/bin/kube-controller-manager" || cmd[1] != "--kubeconfig=/tmp/k" {
		t.Fatalf("command = %q, %v", cmd, err)
	}
	if f.Run.StartTimeout.Duration != subjectfile.DefaultStartTimeout {
		t.Fatalf("start timeout default = %s", f.Run.StartTimeout)
	}
}

func TestLeaderDefaults(t *testing.T) {
	f, err := subjectfile.Parse([]byte(leader), "m.yaml", subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Capabilities.LeaderElected
	if l.Replicas != 2 || l.LeaseDuration.Duration != 3*time.Second || l.LeaderOnly != nil {
		t.Fatalf("leaderElected = %+v", l)
	}
	ns, err := subjectfile.Expand(l.Lease.Namespace, subjectfile.Vars{Namespace: "leader-1"})
	if err != nil || ns != "leader-1" {
		t.Fatalf("lease namespace = %q, %v", ns, err)
	}
}

// A leaderOnly binding names resources, with their group and a
// subresource where needed.
func TestLeaderOnly(t *testing.T) {
	f, err := subjectfile.Parse([]byte(strings.Replace(leader, "retryPeriod: 500ms", "retryPeriod: 500ms\n    leaderOnly: [configmaps, deployments.apps, widgets.example.com/status]", 1)), "m.yaml", subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Capabilities.LeaderElected.LeaderOnly; !slices.Equal(got, []string{"configmaps", "deployments.apps", "widgets.example.com/status"}) {
		t.Errorf("leaderOnly = %v", got)
	}
}

// TestBadFiles checks that each mistake is named: the subject, the field
// and what is expected.
func TestBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"unknown nested field", "retryPeriod: 500ms", "retryPeriod: 500ms\n    leaseDurashun: 3s", []string{`subject "my-manager"`, "capabilities.leaderElected.leaseDurashun: unknown field", "one of leaderOnly, lease, leaseDuration"}},
		{"unknown capability", "  leaderElected:", "  movable: {}\n  leaderElected:", []string{"capabilities.movable: unknown field", "one of foregroundComposite, leaderElected, movableResource, reconciledObjects, scalableWorkload"}},
		{"missing binding", "    lease: {name: my-manager, namespace: \"{{.Namespace}}\"}\n", "", []string{"capabilities.leaderElected.lease.name: missing", "lease.namespace: missing"}},
		{"bad duration", "leaseDuration: 3s", "leaseDuration: three", []string{"capabilities.leaderElected.leaseDuration", `"three" is not a duration`, `such as "30s"`}},
		{"unknown template variable", "{{.Identity}}", "{{.Replica}}", []string{"run.command[2]", "can't evaluate field Replica", "{{.Kubeconfig}}, {{.Identity}}"}},
		{"wrong type", "command: [", "command: /bin/true\n  args: [", []string{"run.command: /bin/true is a string; expected a list", "run.args: unknown field"}},
		{"wrong version", "v1alpha1", "v9", []string{`apiVersion: "steadystate.dev/v9" is not a version`, "expected steadystate.dev/v1alpha3 (or steadystate.dev/v1alpha2, steadystate.dev/v1alpha1)"}},
		{"one replica", "retryPeriod: 500ms", "retryPeriod: 500ms\n    replicas: 1", []string{"capabilities.leaderElected.replicas: 1", "at least 2"}},
		{"leaderOnly not a resource", "retryPeriod: 500ms", "retryPeriod: 500ms\n    leaderOnly: [configmaps, Pods]", []string{"capabilities.leaderElected.leaderOnly[1]: \"Pods\" is not a resource", "such as configmaps", "widgets.example.com/status"}},
		{"leaderOnly leases", "retryPeriod: 500ms", "retryPeriod: 500ms\n    leaderOnly: [leases.coordination.k8s.io]", []string{"capabilities.leaderElected.leaderOnly[0]", "the Lease is the election itself", "not leases"}},
		{"leaderOnly not a list", "retryPeriod: 500ms", "retryPeriod: 500ms\n    leaderOnly: configmaps", []string{"capabilities.leaderElected.leaderOnly", "expected a list"}},
		{"no capability", "capabilities:\n  leaderElected:", "capabilities: {}\nx:\n  leaderElected:", []string{"x: unknown field"}},
		{"not yaml", "kind: Subject", "kind: [Subject", []string{"(file): not YAML"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := subjectfile.Parse([]byte(strings.Replace(leader, tc.old, tc.new, 1)), "m.yaml", subjectfile.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestMissingScalableBindings(t *testing.T) {
	_, err := subjectfile.Parse([]byte("apiVersion: steadystate.dev/v1alpha1\nkind: Subject\nname: w\nrun: {command: [/bin/true]}\ncapabilities:\n  scalableWorkload: {resource: widgets, template: {kind: Widget}, replicasPath: spec..replicas}\n"), "w.yaml", subjectfile.Options{})
	for _, w := range []string{"template.apiVersion: missing", "statusReplicasPath: missing", `replicasPath: "spec..replicas" is not a field path`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
}

// replaceWithin, the storm's wait for replacements, is the binding's to
// set: read as given, and refused out of range with the field named.
func TestReplaceWithin(t *testing.T) {
	const file = "apiVersion: steadystate.dev/v1alpha1\nkind: Subject\nname: w\nrun: {command: [/bin/true]}\ncapabilities:\n  scalableWorkload: {resource: jobs, template: {apiVersion: batch/v1, kind: Job}, replicasPath: spec.parallelism, statusReplicasPath: status.active%s}\n"
	f, err := subjectfile.Parse([]byte(fmt.Sprintf(file, ", replaceWithin: 3m")), "w.yaml", subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Capabilities.ScalableWorkload.ReplaceWithin.Duration; got != 3*time.Minute {
		t.Errorf("replaceWithin = %s, want 3m", got)
	}
	for _, v := range []string{"-1s", "31m"} {
		_, err := subjectfile.Parse([]byte(fmt.Sprintf(file, ", replaceWithin: "+v)), "w.yaml", subjectfile.Options{})
		if err == nil || !strings.Contains(err.Error(), "capabilities.scalableWorkload.replaceWithin: "+v) || !strings.Contains(err.Error(), "at most 30m0s") {
			t.Errorf("replaceWithin %s: %v", v, err)
		}
	}
}

func TestIntNamesTheBindingThatDoesNotResolve(t *testing.T) {
	f, err := subjectfile.Parse([]byte(leader), "m.yaml", subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"kind": "Widget", "metadata": map[string]any{"name": "web", "namespace": "ns"}, "status": map[string]any{"replicas": int64(3), "phase": "Up"}}}
	if n, err := f.Int(obj, "capabilities.scalableWorkload.statusReplicasPath", "status.replicas"); err != nil || n != 3 {
		t.Fatalf("Int = %d, %v", n, err)
	}
	_, err = f.Int(obj, "capabilities.scalableWorkload.statusReplicasPath", "status.ready")
	if err == nil || !strings.Contains(err.Error(), `subject "my-manager"`) || !strings.Contains(err.Error(), "statusReplicasPath: status.ready does not resolve on the live Widget ns/web") {
		t.Fatalf("err = %v", err)
	}
	if _, err = f.Int(obj, "x", "status.phase"); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("err = %v", err)
	}
}

// TestManifestsAndProgramResolveBeforeAnythingStarts: manifests are
// templates and globs, resolved in order; a program or a manifest that is
// not there is named with its field when the file is read.
func TestManifestsAndProgramResolveBeforeAnythingStarts(t *testing.T) {
	up := t.TempDir()
	if err := os.MkdirAll(filepath.Join(up, "ctl@v1", "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.yaml", "a.yaml"} {
		writeFile(t, filepath.Join(up, "ctl@v1", "crds", f), "kind: X\n", 0o644)
	}
	writeFile(t, filepath.Join(up, "ctl@v1", "manager"), "#!/bin/sh\n", 0o755)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "setup.yaml"), "kind: Y\n", 0o644)
	file := strings.Replace(leader, "run:\n  command: [/bin/true,", "run:\n  manifests: [\"{{.UpstreamDir}}/ctl@v1/crds/*.yaml\", setup.yaml]\n  command: [\"{{.UpstreamDir}}/ctl@v1/manager\",", 1)
	f, err := subjectfile.Parse([]byte(file), filepath.Join(dir, "m.yaml"), subjectfile.Options{UpstreamDir: up})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.ManifestFiles()
	want := []string{filepath.Join(up, "ctl@v1/crds/a.yaml"), filepath.Join(up, "ctl@v1/crds/b.yaml"), filepath.Join(dir, "setup.yaml")}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("manifests = %q, %v; want %q", got, err, want)
	}

	_, err = subjectfile.Parse([]byte(file), filepath.Join(dir, "m.yaml"), subjectfile.Options{UpstreamDir: t.TempDir()})
	for _, w := range []string{"run.manifests[0]", "crds/*.yaml\" cannot be read", "run.command[0]", "ctl@v1/manager does not exist", "expected an executable"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
}

// TestForegroundCompositeNeedsV1alpha2: the new capability is refused in a
// v1alpha1 file with the one change to make, and its block binding is
// checked field by field.
func TestForegroundCompositeNeedsV1alpha2(t *testing.T) {
	file := `
apiVersion: steadystate.dev/v1alpha1
kind: Subject
name: claims
run: {command: [/bin/true]}
capabilities:
  foregroundComposite:
    resource: databases
    template: {apiVersion: example.org/v1, kind: Database}
    block: {apiVersion: nop.example.org/v1, kind: Thing, resource: things, selector: "claim={{.Name}}"}
`
	_, err := subjectfile.Parse([]byte(file), "c.yaml", subjectfile.Options{})
	if err == nil || !strings.Contains(err.Error(), "capabilities.foregroundComposite: not in steadystate.dev/v1alpha1; expected apiVersion steadystate.dev/v1alpha2") {
		t.Errorf("v1alpha1 file: %v", err)
	}
	f, err := subjectfile.Parse([]byte(strings.Replace(file, "v1alpha1", "v1alpha2", 1)), "c.yaml", subjectfile.Options{})
	if err != nil || f.Capabilities.ForegroundComposite.Block.Finalizer != "steadystate.dev/block" {
		t.Fatalf("v1alpha2 file: %v", err)
	}
	_, err = subjectfile.Parse([]byte(strings.Replace(strings.Replace(file, "v1alpha1", "v1alpha2", 1), "kind: Thing, ", "", 1)), "c.yaml", subjectfile.Options{})
	if err == nil || !strings.Contains(err.Error(), "capabilities.foregroundComposite.block.kind: missing") {
		t.Errorf("missing block kind: %v", err)
	}
}

// TestPodRunsTheCommandWithThePodsValues: run.pod defaults its args to the
// command's, fills templates with the values given (a pod's), lays
// run.pod.env over run.env with KUBECONFIG the kubeconfig's, and binds
// cluster-admin unless told.
func TestPodRunsTheCommandWithThePodsValues(t *testing.T) {
	file := strings.Replace(leader, "v1alpha1", "v1alpha2", 1)
	file = strings.Replace(file, "capabilities:", "  env: {A: \"{{.Dir}}\", B: b}\n  pod:\n    image: example.com/mgr:v1\n    env: {B: \"{{.Port}}\"}\ncapabilities:", 1)
	f, err := subjectfile.Parse([]byte(file), "m.yaml", subjectfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := subjectfile.Vars{Kubeconfig: "/shared/kubeconfig", Identity: "$(POD_NAME)", Namespace: "ns-1", Dir: "/tmp", Port: 9443}
	args, err := f.PodArgs(v)
	if want := "--kubeconfig=/shared/kubeconfig --id=$(POD_NAME) --lease-namespace=ns-1"; err != nil || strings.Join(args, " ") != want {
		t.Errorf("args = %q, %v; want %q", args, err, want)
	}
	env, err := f.PodEnv(v)
	if want := "[[A /tmp] [B 9443] [KUBECONFIG /shared/kubeconfig]]"; err != nil || fmt.Sprint(env) != want {
		t.Errorf("env = %v, %v; want %s", env, err, want)
	}
	if f.Run.Pod.ClusterRole != "cluster-admin" {
		t.Errorf("cluster role = %q", f.Run.Pod.ClusterRole)
	}
	f, _ = subjectfile.Parse([]byte(strings.Replace(file, "image: example.com/mgr:v1", "image: example.com/mgr:v1\n    args: [\"--id={{.Identity}}\"]", 1)), "m.yaml", subjectfile.Options{})
	if args, _ := f.PodArgs(v); strings.Join(args, " ") != "--id=$(POD_NAME)" {
		t.Errorf("args = %q, want run.pod.args", args)
	}
}

// TestBadPod: each mistake in run.pod is named with its field.
func TestBadPod(t *testing.T) {
	for _, tc := range []struct{ pod, want string }{
		{"{binary: /bin/true}", "run.pod.image: missing"},
		{"{image: \"Not An Image\"}", `run.pod.image: "Not An Image" is not an image name`},
		{"{image: example.com/mgr}", "is not an image name with a tag"},
		{"{image: example.com/mgr:v1, binary: /nowhere/manager}", "run.pod.binary: /nowhere/manager does not exist"},
		{"{image: example.com/mgr:v1, args: [\"{{.Replica}}\"]}", "run.pod.args[0]"},
		{"{image: example.com/mgr:v1, ports: [1]}", "run.pod.ports: unknown field"},
	} {
		file := strings.Replace(strings.Replace(leader, "v1alpha1", "v1alpha2", 1), "capabilities:", "  pod: "+tc.pod+"\ncapabilities:", 1)
		if _, err := subjectfile.Parse([]byte(file), "m.yaml", subjectfile.Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run.pod %s: error %v does not say %q", tc.pod, err, tc.want)
		}
	}
	_, err := subjectfile.Parse([]byte(strings.Replace(leader, "capabilities:", "  pod: {image: example.com/mgr:v1}\ncapabilities:", 1)), "m.yaml", subjectfile.Options{})
	if err == nil || !strings.Contains(err.Error(), "run.pod: not in steadystate.dev/v1alpha1") {
		t.Errorf("v1alpha1 with run.pod: %v", err)
	}
}

// TestFromImageNeedsNoProgramHere: a controller that starts from its
// image (in pods on an existing cluster) needs neither run.command's
// program nor run.pod.binary on this host, and packs nothing; without
// FromImage both are checked.
func TestFromImageNeedsNoProgramHere(t *testing.T) {
	file := strings.Replace(leader, "v1alpha1", "v1alpha2", 1)
	file = strings.Replace(file, "run:\n  command: [/bin/true,", "run:\n  command: [/nowhere/manager,", 1)
	file = strings.Replace(file, "capabilities:", "  pod: {image: example.com/mgr:v1, binary: /nowhere/manager}\ncapabilities:", 1)
	_, err := subjectfile.Parse([]byte(file), "m.yaml", subjectfile.Options{})
	for _, w := range []string{"run.command[0]: /nowhere/manager does not exist", "run.pod.binary: /nowhere/manager does not exist"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("without FromImage, error %v does not say %q", err, w)
		}
	}
	f, err := subjectfile.Parse([]byte(file), "m.yaml", subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatalf("with FromImage: %v", err)
	}
	if bin, err := f.PodBinary(); bin != "" || err != nil {
		t.Errorf("PodBinary = %q, %v; want nothing to pack", bin, err)
	}
}
