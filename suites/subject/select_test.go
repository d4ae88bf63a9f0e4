package subject

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func TestChoose(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: steadystate.dev/v1alpha1\nkind: Subject\nname: x\nrun: {command: [x]}\ncapabilities: {scalableWorkload: {resource: widgets}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, name, bug string
		want            string // "" for no error
		subject         string
	}{
		{subject: ""},
		{name: "workload", bug: "no-expectations", subject: "workload"},
		{name: "cluster", bug: "strip-then-delete", subject: "cluster"},
		{bug: "ignore-lost-lease", subject: ""},
		{name: "replicaset", subject: "replicaset"},
		{name: "stack", bug: "watch-never-back", subject: "stack"},
		{name: "stack", bug: "status-hot-loop", want: "SUBJECT_BUG=status-hot-loop is not a bug of subject stack"},
		{name: "workload", bug: "ignore-lost-lease", want: "SUBJECT_BUG=ignore-lost-lease is not a bug of subject workload: use one of expectations-never-expire, no-expectations"},
		{bug: "typo", want: "SUBJECT_BUG=typo is not a bug of any reference controller"},
		{name: "nginx", want: `SUBJECT="nginx" is not a built-in subject: use one of cluster, composite, endpointslice, job, leader, replicaset, sample-controller, stack, stack-templated, stack-unwatched, statefulset, workload, or SUBJECT_FILE`},
		{name: "replicaset", bug: "no-expectations", want: "applies to the reference subjects only"},
		{file: bad, name: "workload", want: "are both set"},
		{file: bad, want: `subject file ` + bad + ` (subject "x"): capabilities.scalableWorkload.template: missing`},
	} {
		s, err := choose(testenv.Config{SubjectFile: tc.file, Subject: tc.name, Bug: tc.bug, Placement: Processes})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("choose(%q, %q, %q): %v", tc.file, tc.name, tc.bug, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("choose(%q, %q, %q) = %v, want an error saying %q", tc.file, tc.name, tc.bug, err, tc.want)
		case tc.want == "" && tc.subject == "" && s != nil:
			t.Errorf("choose(%q, %q, %q) = %s, want each suite's reference subject (nil)", tc.file, tc.name, tc.bug, s.Name())
		case tc.want == "" && tc.subject != "" && (s == nil || s.Name() != tc.subject):
			t.Errorf("choose(%q, %q, %q) = %v, want %s", tc.file, tc.name, tc.bug, s, tc.subject)
		}
	}
}

// TestPlacement: in pods, a subject file needs run.pod, and its
// run.pod.binary must be static; both are refused before anything starts.
func TestPlacement(t *testing.T) {
	dir := t.TempDir()
	// The built-in subject files run the local build's
	// kube-controller-manager: stand-ins let them load without a build.
	bins := t.TempDir()
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		if err := os.WriteFile(filepath.Join(bins, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBE_BIN_DIR", bins)
	file := func(name, pod string) string {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte("apiVersion: steadystate.dev/v1alpha2\nkind: Subject\nname: "+name+"\nrun:\n  command: [/bin/true]\n"+pod+
			"capabilities:\n  leaderElected: {lease: {name: l, namespace: ns}, leaseDuration: 2s, retryPeriod: 1s}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct{ provider, placement, name, file, want string }{
		{provider: "kind", want: ""},
		{provider: "kind", name: "replicaset", want: "SUBJECT=replicaset runs its controller as local processes only: it has no run.pod (image, args); add one (see docs/subject-files.md, Subjects in pods), or set SUBJECT_PLACEMENT=processes"},
		{provider: "kind", file: file("nopod", ""), want: "nopod.yaml runs its controller as local processes only"},
		{provider: "kind", file: file("dynamic", "  pod: {image: example.com/dyn:v1, binary: /bin/ls}\n"), want: `(subject "dynamic"): run.pod.binary: /bin/ls is dynamically linked`},
		{provider: "kind", file: file("image", "  pod: {image: example.com/img:v1}\n"), want: ""},
		{provider: "kind", placement: "processes", name: "replicaset", want: ""},
		{provider: "kind", placement: "processes", file: file("dynamic", "  pod: {image: example.com/dyn:v1, binary: /bin/ls}\n"), want: ""},
		{provider: "local", placement: "vms", want: `SUBJECT_PLACEMENT="vms": use processes or pods`},
	} {
		t.Setenv("PROVIDER", tc.provider)
		t.Setenv("SUBJECT_PLACEMENT", tc.placement)
		cfg := testenv.ConfigFromEnv()
		cfg.SubjectFile, cfg.Subject = tc.file, tc.name
		_, err := choose(cfg)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: err = %v, want %q", tc, err, tc.want)
		}
	}
	t.Setenv("PROVIDER", "kind")
	t.Setenv("SUBJECT_PLACEMENT", "")
	if p := testenv.ConfigFromEnv().Placement; p != Pods {
		t.Errorf("default placement on kind = %s, want pods", p)
	}
}

// TestStartFailsNamingTheSubject starts a command that exits at once and
// one that never talks to the API server: each start fails with the
// subject, the field and the replica's log.
func TestStartFailsNamingTheSubject(t *testing.T) {
	for _, tc := range []struct {
		command []string
		want    []string
	}{
		{[]string{"/bin/sh", "-c", "echo cannot read {{.Kubeconfig}} >&2; exit 3"}, []string{`(subject "broken"): run.command: replica broken-0 exited at start: broken-0 exited during start-up (exit status 3)`, "cannot read /", "expected a controller that keeps running"}},
		{[]string{"/bin/sleep", "60"}, []string{"replica broken-0 made no request to the API server within 300ms (run.startTimeout)"}},
	} {
		f := &subjectfile.File{Path: "broken.yaml", Name: "broken", Run: subjectfile.Run{Command: tc.command, StartTimeout: subjectfile.Duration{Duration: 300 * time.Millisecond}}}
		o := fileOptions(f, "ns", 1, &rest.Config{Host: "https://127.0.0.1:1"})
		o.Dir = t.TempDir()
		s, err := runner.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		err = waitStarted(context.Background(), f, s)
		s.Stop()
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %v does not say %q", tc.command, err, w)
			}
		}
	}
}

// TestMissingClusterRoleNamesTheField: a run.pod.clusterRole the cluster
// does not have is refused before any pod starts, naming the field.
func TestMissingClusterRoleNamesTheField(t *testing.T) {
	f := &subjectfile.File{Path: "m.yaml", Name: "mgr", Run: subjectfile.Run{Pod: &subjectfile.Pod{ClusterRole: "mgr-role"}}}
	kube := fake.NewClientset()
	err := clusterRoleExists(t.Context(), kube, f)
	if err == nil || !strings.Contains(err.Error(), `(subject "mgr"): run.pod.clusterRole: ClusterRole "mgr-role" does not exist on the cluster`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(t.Context(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "mgr-role"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := clusterRoleExists(t.Context(), kube, f); err != nil {
		t.Fatalf("an existing role: %v", err)
	}
}
