package subjectfile

import (
	"fmt"
	"strings"
	"text/template"
)

// Vars are the values a command, an env value, a manifest path or a Lease
// name can use.
type Vars struct {
	// Kubeconfig is the replica's kubeconfig: it points at the replica's
	// fault proxy (KUBECONFIG is set to it as well).
	Kubeconfig string
	// Identity is the replica's name, unique per replica. A controller
	// may use it as its leader-election identity, or choose its own: the
	// suites learn each replica's holder identity from its Lease writes.
	Identity string
	// Namespace is the spec's namespace.
	Namespace string
	// KubeBinDir is the folder of the Kubernetes binaries the harness
	// uses (kube-controller-manager among them).
	KubeBinDir string
	// UpstreamDir is the folder `make upstream-bins` builds the upstream
	// releases into (UPSTREAM_DIR), one folder per release.
	UpstreamDir string
	// Dir is a fresh, writable folder of the replica's own (certificates,
	// caches), removed when the spec ends.
	Dir string
	// CertDir is a folder of the replica's own holding a serving
	// certificate for loopback, tls.crt and tls.key, and its CA, ca.crt
	// (a webhook server's).
	CertDir string
	// SourceKubeconfig and TargetKubeconfig are a mover's clusters, and
	// Namespace what it moves (movableResource.mover.command).
	SourceKubeconfig, TargetKubeconfig string
	// Name is the name of the object a template is about (a claim's, in
	// foregroundComposite.block.selector).
	Name string
	// Port is a TCP port on loopback that was free when the replica
	// started, for a server it must run (a webhook server): replicas of
	// several runs on one host must not share one.
	Port int
}

const varNames = "{{.Kubeconfig}}, {{.Identity}}, {{.Namespace}}, {{.KubeBinDir}}, {{.UpstreamDir}}, {{.Dir}}, {{.CertDir}}, {{.Port}}, {{.Name}}, {{.SourceKubeconfig}}, {{.TargetKubeconfig}}"

var sampleVars = Vars{Kubeconfig: "/k", Identity: "i", Namespace: "n", KubeBinDir: "/b", UpstreamDir: "/u", Dir: "/d", CertDir: "/c", Port: 1, Name: "x", SourceKubeconfig: "/s", TargetKubeconfig: "/t"}

// Expand fills in a template of the file.
func Expand(s string, v Vars) (string, error) {
	t, err := template.New("").Option("missingkey=error").Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a template: %v", s, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", fmt.Errorf("%q cannot be filled in: %v", s, err)
	}
	return b.String(), nil
}

// Command is run.command filled in for one replica.
func (f *File) Command(v Vars) ([]string, error) {
	out := make([]string, len(f.Run.Command))
	for i, c := range f.Run.Command {
		s, err := Expand(c, v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// Environ is run.env filled in for one replica, as KEY=value pairs, with
// KUBECONFIG first.
func (f *File) Environ(v Vars) ([]string, error) {
	out := []string{"KUBECONFIG=" + v.Kubeconfig}
	for k, val := range f.Run.Env {
		s, err := Expand(val, v)
		if err != nil {
			return nil, err
		}
		out = append(out, k+"="+s)
	}
	return out, nil
}

// ExpandAll is v (a value decoded from YAML or JSON: maps, lists,
// strings, numbers) with every string in it filled in as a template of
// vars (Expand): a change's merge patch names what the objects name, a
// cluster-scoped object's {{.Namespace}}-qualified name among them.
func ExpandAll(v any, vars Vars) (any, error) {
	switch x := v.(type) {
	case string:
		return Expand(x, vars)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			e, err := ExpandAll(item, vars)
			if err != nil {
				return nil, err
			}
			out[k] = e
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			e, err := ExpandAll(item, vars)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	return v, nil
}
