package subjectfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

const steady = `
apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: claims
run: {command: [/bin/true]}
capabilities:
  reconciledObjects:
    objects:
    - apiVersion: example.org/v1
      kind: Database
      metadata: {name: db, labels: {ns: "{{.Namespace}}"}}
      spec: {size: 1}
    - more.yaml
    changes:
    - patch: {object: {kind: Database, name: db}, merge: {spec: {size: 2}}}
    - scale: {object: {kind: Deployment, name: web}, value: 3}
    - delete: {kind: ConfigMap, name: settings, propagationPolicy: Orphan}
    readiness:
      overrides:
      - {kind: ConfigMap, exists: true}
      - {kind: Database, path: status.phase, value: Bound}
    ignore: [status.lastSyncTime]
    shared: [Secret, ConfigMap/kube-root-ca.crt]
`

const more = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: elsewhere}
data: {owner: "{{.Namespace}}"}
`

// allNamespaced is the scope of a cluster whose every kind is namespaced.
func allNamespaced(schema.GroupVersionKind) (bool, error) { return true, nil }

func steadyFile(t *testing.T, text string) (*subjectfile.File, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "more.yaml"), []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return subjectfile.Load(path, subjectfile.Options{})
}

// TestReconciledObjectsAloneIsBound: a file binding only reconciledObjects loads (with
// none bound it was refused), its objects come from the inline manifest
// and the file, templates filled and every object set into the spec's
// namespace, and the defaults are filled in.
func TestReconciledObjectsAloneIsBound(t *testing.T) {
	f, err := steadyFile(t, steady)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Capabilities.Bound(); !slices.Equal(got, []string{"reconciledObjects"}) {
		t.Errorf("bound %v", got)
	}
	objs, err := f.SteadyObjects(subjectfile.Vars{Namespace: "spec-1"}, allNamespaced)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	if want := []string{"Database/spec-1/db", "Deployment/spec-1/web", "ConfigMap/spec-1/settings"}; !slices.Equal(names, want) {
		t.Errorf("objects %v, want %v", names, want)
	}
	if objs[0].GetLabels()["ns"] != "spec-1" || objs[2].Object["data"].(map[string]any)["owner"] != "spec-1" {
		t.Errorf("templates not filled in: %v, %v", objs[0].GetLabels(), objs[2].Object["data"])
	}
	s := f.Capabilities.ReconciledObjects
	if s.Changes[1].Scale.Path != "spec.replicas" || s.SettleWithin.Duration != subjectfile.DefaultSettleWithin || s.SettleWindow.Duration != subjectfile.DefaultSettleWindow || s.QuietWindow.Duration != subjectfile.DefaultQuietWindow || s.GoneWithin.Duration != subjectfile.DefaultGoneWithin {
		t.Errorf("defaults not filled in: %+v", s)
	}
	if d := s.Changes[2]; d.Target() != (subjectfile.ObjectName{Kind: "ConfigMap", Name: "settings"}) || d.Delete.PropagationPolicy != "Orphan" || d.String() != "delete ConfigMap/settings (propagationPolicy Orphan)" {
		t.Errorf("delete change %+v reads as %q", d.Delete, d)
	}
	if !s.IsShared("Secret", "x") || !s.IsShared("ConfigMap", "kube-root-ca.crt") || s.IsShared("ConfigMap", "settings") {
		t.Error("shared does not match kinds and single objects")
	}
}

// A file written before the capability was renamed binds it as
// steadyState: it loads as reconciledObjects; a file binding both is
// refused in one line.
func TestFormerCapabilityName(t *testing.T) {
	former := strings.Replace(steady, "  reconciledObjects:", "  steadyState:", 1)
	if former == steady {
		t.Fatal("the test file binds no reconciledObjects to rename")
	}
	f, err := steadyFile(t, former)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Capabilities.Bound(); !slices.Equal(got, []string{"reconciledObjects"}) || f.Capabilities.ReconciledObjects.Changes[1].Scale.Path != "spec.replicas" {
		t.Errorf("bound %v, want reconciledObjects read whole", got)
	}
	both := strings.Replace(steady, "  reconciledObjects:", "  steadyState: {}\n  reconciledObjects:", 1)
	_, err = steadyFile(t, both)
	if err == nil || !strings.Contains(err.Error(), "capabilities.steadyState: binds both reconciledObjects and steadyState, its former name") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("both bound: %v", err)
	}
}

// TestBadReconciledObjects: each bad binding is refused before anything starts,
// in one line naming the subject, the field and what is expected.
func TestBadReconciledObjects(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"older version", "v1alpha3", "v1alpha2", []string{"capabilities.reconciledObjects: not in steadystate.dev/v1alpha2", "expected apiVersion steadystate.dev/v1alpha3"}},
		{"change names no object", "kind: Deployment, name: web}, value", "kind: Deployment, name: api}, value", []string{`(subject "claims")`, "capabilities.reconciledObjects.changes[1]: Deployment/api is not among the objects", "one of ConfigMap/settings, Database/db, Deployment/web"}},
		{"two actions", "- delete: {kind: ConfigMap, name: settings, propagationPolicy: Orphan}", "- delete: {kind: ConfigMap, name: settings}\n      scale: {object: {kind: Deployment, name: web}, value: 1}", []string{"capabilities.reconciledObjects.changes[2]: 2 of patch, delete and scale set"}},
		{"bad propagation policy", "propagationPolicy: Orphan", "propagationPolicy: orphan", []string{`capabilities.reconciledObjects.changes[2].delete.propagationPolicy: "orphan" is not a propagation policy`, "expected one of Foreground, Background, Orphan, or none"}},
		{"propagation policy on a patch", "merge: {spec: {size: 2}}}", "merge: {spec: {size: 2}}, propagationPolicy: Orphan}", []string{"capabilities.reconciledObjects.changes[0].patch.propagationPolicy: unknown field"}},
		{"override kind not there", "{kind: ConfigMap, exists: true}", "{kind: Databse, exists: true}", []string{`capabilities.reconciledObjects.readiness.overrides[0].kind: "Databse" is not the kind of any of the objects, of a CRD in run.manifests, nor a built-in kind`, "expected a kind among the objects or of what they own"}},
		{"override without value", "path: status.phase, value: Bound", "path: status.phase", []string{"capabilities.reconciledObjects.readiness.overrides[1].value: missing"}},
		{"unknown field", "ignore: [", "ignroe: [", []string{"capabilities.reconciledObjects.ignroe: unknown field", "expected one of changes, goneWithin, ignore, objects"}},
		{"bad ignore path", "status.lastSyncTime", "status..x", []string{`capabilities.reconciledObjects.ignore[0]: "status..x" is not a field path`}},
		{"a selector on no conditions list", "status.lastSyncTime", `"status.items[Active]"`, []string{`capabilities.reconciledObjects.ignore[0]: "status.items[Active]" is not a field path; expected field names joined by dots, such as status.phase; a condition by its type: status.conditions[Active]`}},
		{"a condition type that is no type", "status.lastSyncTime", `"status.conditions[a b]"`, []string{`capabilities.reconciledObjects.ignore[0]: "status.conditions[a b]" is not a field path`}},
		{"an empty condition type", "status.lastSyncTime", `"status.conditions[]"`, []string{`capabilities.reconciledObjects.ignore[0]: "status.conditions[]" is not a field path`}},
		{"missing file", "- more.yaml", "- less.yaml", []string{"capabilities.reconciledObjects.objects[1]:", "less.yaml"}},
		{"manifest without name", "metadata: {name: db, labels", "metadata: {labels", []string{"capabilities.reconciledObjects.objects[0]: Database has no metadata.name"}},
		{"bad record", "shared: [Secret,", "record: [Endpoint/Slices]\n    shared: [Secret,", []string{`capabilities.reconciledObjects.record[0]: "Endpoint/Slices" is not a resource`}},
		{"bad shared", "shared: [Secret,", "shared: [a/b/c,", []string{`capabilities.reconciledObjects.shared[0]: "a/b/c"`}},
		{"negative window", "ignore:", "settleWindow: -1s\n    ignore:", []string{"capabilities.reconciledObjects.settleWindow: -1s is out of range"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(steady, tc.old, tc.new, 1)
			if text == steady {
				t.Fatalf("%q is not in the file", tc.old)
			}
			_, err := steadyFile(t, text)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "subject file ") {
					t.Errorf("a problem line %q does not name the subject file", line)
				}
			}
		})
	}
}

// TestBuiltInEndpointSliceFileIsValid: the EndpointSlice controller's
// file binds only reconciledObjects, with one Service.
func TestBuiltInEndpointSliceFileIsValid(t *testing.T) {
	data, err := fixtures.Subjects.ReadFile("subjects/endpointslice.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "kube-controller-manager"), "#!/bin/sh\n", 0o755)
	f, err := subjectfile.Parse(data, "endpointslice.yaml", subjectfile.Options{KubeBinDir: bin})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := f.SteadyObjects(subjectfile.Vars{Namespace: "n"}, allNamespaced)
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "Service" || !slices.Equal(f.Capabilities.Bound(), []string{"reconciledObjects"}) {
		t.Fatalf("objects %v, %v; bound %v", objs, err, f.Capabilities.Bound())
	}
}

// clusterScoped binds a namespaced Certificate and a cluster-scoped
// ClusterIssuer it names, and a change of the ClusterIssuer by its name
// as the object gives it.
const clusterScoped = `
apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: issuer
run: {command: [/bin/true]}
capabilities:
  reconciledObjects:
    objects:
    - apiVersion: cert-manager.io/v1
      kind: ClusterIssuer
      metadata: {name: "{{.Namespace}}-selfsigned"}
      spec: {selfSigned: {}}
    - apiVersion: cert-manager.io/v1
      kind: Certificate
      metadata: {name: web}
      spec: {issuerRef: {kind: ClusterIssuer, name: "{{.Namespace}}-selfsigned"}}
    changes:
    - patch: {object: {kind: ClusterIssuer, name: "{{.Namespace}}-selfsigned"}, merge: {metadata: {labels: {changed: "true"}}}}
`

// issuerScope is a cluster's discovery as a scope: ClusterIssuers are
// cluster-scoped, Certificates namespaced, nothing else served.
func issuerScope(gvk schema.GroupVersionKind) (bool, error) {
	switch gvk.Kind {
	case "ClusterIssuer":
		return false, nil
	case "Certificate":
		return true, nil
	}
	return false, fmt.Errorf("no matches for kind %q", gvk.Kind)
}

// TestClusterScopedObjects: a cluster-scoped object (by the scope) is
// given no namespace and keeps its name, the namespace in it; a
// namespaced one is set into the namespace; a change names the
// cluster-scoped one by its name's template and finds it.
func TestClusterScopedObjects(t *testing.T) {
	f, err := steadyFile(t, clusterScoped)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := f.SteadyObjects(subjectfile.Vars{Namespace: "steady-x7k2p"}, issuerScope)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	if want := []string{"ClusterIssuer//steady-x7k2p-selfsigned", "Certificate/steady-x7k2p/web"}; !slices.Equal(names, want) {
		t.Errorf("objects %v, want %v", names, want)
	}
	c := f.Capabilities.ReconciledObjects.Changes[0]
	got, err := c.TargetIn(subjectfile.Vars{Namespace: "steady-x7k2p"})
	if err != nil || got != (subjectfile.ObjectName{Kind: "ClusterIssuer", Name: "steady-x7k2p-selfsigned"}) {
		t.Errorf("the change names %v (%v)", got, err)
	}
	if s := c.String(); !strings.Contains(s, "ClusterIssuer/{{.Namespace}}-selfsigned") {
		t.Errorf("the change reads %q: it should name the object as the file does, the same in every run", s)
	}
}

// TestClusterScopedNameWithoutNamespace: a cluster-scoped object whose name
// does not carry the namespace as a word of its own, or of a kind the
// cluster does not serve, is refused in one line naming the field and
// what to write instead.
func TestClusterScopedNameWithoutNamespace(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"no namespace", `metadata: {name: "{{.Namespace}}-selfsigned"}`, `metadata: {name: selfsigned}`,
			[]string{`capabilities.reconciledObjects.objects[0]: ClusterIssuer "selfsigned" is cluster-scoped and its name does not carry the spec's namespace`, "expected a name made of {{.Namespace}} and more, such as {{.Namespace}}-selfsigned"}},
		{"inside a word", `metadata: {name: "{{.Namespace}}-selfsigned"}`, `metadata: {name: "{{.Namespace}}x"}`,
			[]string{`ClusterIssuer "steady-x7k2px" is cluster-scoped and its name does not carry the spec's namespace`}},
		{"not served", "kind: Certificate\n", "kind: Certificat\n",
			[]string{`capabilities.reconciledObjects.objects[1]: the cluster does not serve cert-manager.io/v1, Kind=Certificat`, "expected a kind the cluster or the subject's manifests define"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(clusterScoped, tc.old, tc.new, 1)
			// The change names an object the case does not touch.
			changed := `object: {kind: Certificate, name: web}`
			if strings.Contains(tc.new, "Certificat\n") {
				changed = `object: {kind: Certificat, name: web}`
			}
			f, err := steadyFile(t, strings.Replace(text, `object: {kind: ClusterIssuer, name: "{{.Namespace}}-selfsigned"}`, changed, 1))
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.SteadyObjects(subjectfile.Vars{Namespace: "steady-x7k2p"}, issuerScope)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

// TestChangeNamesTheGivenName: a change of a cluster-scoped object names
// it as the object gives it, {{.Namespace}} and all; naming it otherwise
// is refused, the message listing the names as given.
func TestChangeNamesTheGivenName(t *testing.T) {
	text := strings.Replace(clusterScoped, `object: {kind: ClusterIssuer, name: "{{.Namespace}}-selfsigned"}`, `object: {kind: ClusterIssuer, name: selfsigned}`, 1)
	_, err := steadyFile(t, text)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"capabilities.reconciledObjects.changes[0]: ClusterIssuer/selfsigned is not among the objects", "one of Certificate/web, ClusterIssuer/{{.Namespace}}-selfsigned"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestCarriesNamespace: the namespace as a word of its own, as the
// end-state comparison masks it.
func TestCarriesNamespace(t *testing.T) {
	for name, want := range map[string]bool{
		"steady-x7k2p": true, "steady-x7k2p-selfsigned": true, "ca.steady-x7k2p": true, "a-steady-x7k2p-b": true,
		"steady-x7k2px": false, "xsteady-x7k2p": false, "selfsigned": false, "steady-x7k2": false,
	} {
		if got := subjectfile.CarriesNamespace(name, "steady-x7k2p"); got != want {
			t.Errorf("CarriesNamespace(%q) = %v, want %v", name, got, want)
		}
	}
	if subjectfile.CarriesNamespace("x", "") {
		t.Error("an empty namespace is carried by nothing")
	}
}

// The objects an operator makes are judged too (everything the applied
// objects own), so a readiness override may name their kind: a built-in
// kind, or one a CRD of run.manifests defines. A kind of neither is a
// typo, refused as above.
func TestOverrideForAnOwnedKind(t *testing.T) {
	dir := t.TempDir()
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: users.example.org}\nspec:\n  group: example.org\n  names: {kind: User, plural: users}\n"
	// An object of another shape before the CRD (a spec that is text)
	// does not stop the reading.
	other := "apiVersion: example.org/v1\nkind: Odd\nmetadata: {name: odd}\nspec: text\n---\n"
	if err := os.WriteFile(filepath.Join(dir, "crds.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n"+other+crd), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind string
		ok   bool
	}{{"User", true}, {"StatefulSet", true}, {"PersistentVolumeClaim", true}, {"Usr", false},
		// Kinds the scheme knows that are no object's: a list, options.
		{"DeploymentList", false}, {"DeleteOptions", false}, {"WatchEvent", false}} {
		text := strings.Replace(steady, "run: {command: [/bin/true]}", "run: {command: [/bin/true], manifests: [crds.yaml]}", 1)
		text = strings.Replace(text, "{kind: ConfigMap, exists: true}", "{kind: "+tc.kind+", exists: true}", 1)
		if err := os.WriteFile(filepath.Join(dir, "more.yaml"), []byte(more), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := subjectfile.Load(path, subjectfile.Options{})
		if (err == nil) != tc.ok {
			t.Errorf("an override for %s: %v, want accepted %v", tc.kind, err, tc.ok)
		}
	}
}

// PodMaker finds a built-in workload among the objects, inline or from a
// file, by group and kind: another group's Job makes no pods here.
func TestPodMaker(t *testing.T) {
	alone := func(object string) string {
		return "apiVersion: steadystate.dev/v1alpha3\nkind: Subject\nname: one\nrun: {command: [/bin/true]}\n" +
			"capabilities:\n  reconciledObjects:\n    objects:\n    - " + object + "\n"
	}
	for _, tc := range []struct{ name, text, want string }{
		{"a Deployment from more.yaml", steady, "Deployment/web"},
		{"another group's Job", alone("{apiVersion: example.org/v1, kind: Job, metadata: {name: j}}"), ""},
		{"a ConfigMap", alone("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}"), ""},
		{"a Pod", alone("{apiVersion: v1, kind: Pod, metadata: {name: p}}"), "Pod/p"},
		{"a StatefulSet", alone("{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s}}"), "StatefulSet/s"},
	} {
		f, err := steadyFile(t, tc.text)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := f.PodMaker(); got != tc.want {
			t.Errorf("%s: PodMaker() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
