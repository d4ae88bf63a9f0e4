package subjectfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// ReconciledObjects binds what every controller has: the objects it reconciles,
// later changes to them, and how "ready" is decided. The reconcile
// suite applies the objects into the spec's namespace, waits for them and
// everything they own to be ready, applies each change once the state has
// settled, and judges settling, quiescence, what a deletion leaves behind
// and the end state against a fault-free reference run. v1alpha3.
type ReconciledObjects struct {
	// Objects are the objects the controller reconciles, as plain
	// manifests: each entry is either an inline manifest (a mapping) or
	// a path (relative to the subject file; a glob matches several) of a
	// YAML file of one or more documents. Manifests are templates of
	// {{.Namespace}} (the spec's); every namespaced object is applied
	// into the spec's namespace. An object of a cluster-scoped kind (the
	// API server's discovery says which) is applied without one, and its
	// name must carry {{.Namespace}} as a word of its own, such as
	// {{.Namespace}}-selfsigned: the runs share the cluster, and each
	// run's cluster-scoped objects must be its own (the end-state
	// comparison masks the namespace in names as in values).
	Objects []any `json:"objects"`
	// Changes are applied one at a time, each once the state has settled.
	Changes []Change `json:"changes,omitempty"`
	// Readiness says how ready is decided; by default Kubernetes' status
	// conventions (kstatus: Current is ready).
	Readiness Readiness `json:"readiness,omitempty"`
	// Ignore lists dotted field paths (status.lastSyncTime) masked in the
	// end-state comparison: on every object, or, written Kind:path
	// (ScaledObject:status.conditions[Active]), on objects of that kind
	// only; the field and everything below it, through lists
	// (status.conditions.lastTransitionTime). A condition is named by its
	// type: status.conditions[Active], or
	// status.conditions[example.com/Synced] (the comparison matches
	// conditions by type). A whole status, spec, data or metadata is
	// refused: masked, the comparison would say nothing of it. The
	// verdict's bound names every difference each entry masked.
	Ignore []string `json:"ignore,omitempty"`
	// Shared lists what the controller may leave behind by design: a
	// kind (ConfigMap) or one object (ConfigMap/ca-bundle), a
	// cluster-scoped one by its name as given ({{.Namespace}}-selfsigned).
	Shared []string `json:"shared,omitempty"`
	// Record lists resources the controller writes that the suite must
	// record besides the objects' own API groups and the common kinds
	// (configmaps, secrets, services, serviceaccounts, pods,
	// persistentvolumeclaims, deployments, replicasets, statefulsets,
	// jobs): plural names with their group but for the core group, such
	// as endpointslices.discovery.k8s.io. An object the controller
	// creates of a resource nobody records leaves leaves-nothing-behind
	// not evaluated, naming it.
	Record []string `json:"record,omitempty"`
	// SettleWithin is T, how long the state may take to be ready after
	// the objects are applied, after each change and after a fault is
	// recovered (default 60s); SettleWindow is W, how long it must then
	// stay ready (default 5s).
	SettleWithin Duration `json:"settleWithin,omitempty"`
	SettleWindow Duration `json:"settleWindow,omitempty"`
	// QuietWindow is how long a settled state with nothing changing is
	// watched for writes of the controller in the first fault-free run
	// (default 35s, at least 10s: a controller that rewrites its status
	// every 30s is caught); a faulted run that settled again is watched
	// for at most 5s of it.
	QuietWindow Duration `json:"quietWindow,omitempty"`
	// GoneWithin is how long the deleted objects, what they own and what
	// the controller created for them may take to be gone (default 60s).
	GoneWithin Duration `json:"goneWithin,omitempty"`
}

// wholeFields are the top-level fields an ignore path may not mask whole.
var wholeFields = []string{"status", "spec", "data", "stringData", "binaryData", "metadata", "metadata.labels", "metadata.annotations"}

// The steady-state bounds when the file sets none.
const (
	DefaultSettleWithin = 60 * time.Second
	DefaultSettleWindow = 5 * time.Second
	DefaultQuietWindow  = 35 * time.Second
	DefaultGoneWithin   = 60 * time.Second
)

// MinQuietWindow is the shortest quiet window a binding may ask for: a
// shorter one holds for a controller that rewrites its status every few
// seconds.
const MinQuietWindow = 10 * time.Second

// ObjectName names one of the objects by kind and name, as the object
// gives it: a cluster-scoped object by its name's template
// ({{.Namespace}}-selfsigned).
type ObjectName struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

func (o ObjectName) String() string { return o.Kind + "/" + o.Name }

// Change is one later change: exactly one of Patch, Delete and Scale.
type Change struct {
	// Patch applies Merge as a JSON merge patch to the object.
	Patch *PatchChange `json:"patch,omitempty"`
	// Delete deletes the object.
	Delete *DeleteChange `json:"delete,omitempty"`
	// Scale sets the object's replicas (at Path) to Value.
	Scale *ScaleChange `json:"scale,omitempty"`
}

// PatchChange is a merge patch on a named object.
type PatchChange struct {
	Object ObjectName     `json:"object"`
	Merge  map[string]any `json:"merge"`
}

// DeleteChange deletes a named object, with a propagation policy: what
// the garbage collector does with the objects it owns.
type DeleteChange struct {
	Kind string `json:"kind"`
	// Name is the object's name as the object gives it, {{.Namespace}}
	// and all for a cluster-scoped one.
	Name string `json:"name"`
	// PropagationPolicy is Foreground (the object goes once the objects
	// it owns with blockOwnerDeletion are gone), Background (it goes at
	// once, they after) or Orphan (they stay, without its owner
	// reference); empty, the API server's default for the kind.
	PropagationPolicy string `json:"propagationPolicy,omitempty"`
}

// Object is the object the delete names.
func (d DeleteChange) Object() ObjectName { return ObjectName{Kind: d.Kind, Name: d.Name} }

// PropagationPolicies are the values of a delete change's
// propagationPolicy, as Kubernetes names them (metav1.DeletionPropagation).
var PropagationPolicies = []string{"Foreground", "Background", "Orphan"}

// ScaleChange sets a named object's replicas.
type ScaleChange struct {
	Object ObjectName `json:"object"`
	// Path is the dotted path of the replicas (default spec.replicas).
	Path  string `json:"path,omitempty"`
	Value int    `json:"value"`
}

// Target is the object the change names.
func (c Change) Target() ObjectName {
	switch {
	case c.Patch != nil:
		return c.Patch.Object
	case c.Delete != nil:
		return c.Delete.Object()
	case c.Scale != nil:
		return c.Scale.Object
	}
	return ObjectName{}
}

// TargetIn is the object the change names, its name filled in with v:
// a cluster-scoped object's name is a template of {{.Namespace}}.
func (c Change) TargetIn(v Vars) (ObjectName, error) {
	t := c.Target()
	name, err := Expand(t.Name, v)
	if err != nil {
		return ObjectName{}, err
	}
	return ObjectName{Kind: t.Kind, Name: name}, nil
}

// String says what the change does, for messages and evidence. A patch
// shows the fields it sets, but never a value a Secret may hold: every
// value of a patch of a Secret, and every value below data or stringData
// of any kind, is shown as RedactedValue.
func (c Change) String() string {
	switch {
	case c.Patch != nil:
		return fmt.Sprintf("patch %s %s", c.Patch.Object, patchText(c.Patch))
	case c.Delete != nil && c.Delete.PropagationPolicy != "":
		return fmt.Sprintf("delete %s (propagationPolicy %s)", c.Delete.Object(), c.Delete.PropagationPolicy)
	case c.Delete != nil:
		return "delete " + c.Delete.Object().String()
	case c.Scale != nil:
		return fmt.Sprintf("scale %s %s=%d", c.Scale.Object, c.Scale.Path, c.Scale.Value)
	}
	return "no change"
}

// Readiness decides when an object is ready. Kubernetes' status
// conventions (kstatus) call an object with no status ready as soon as
// it exists: an applied custom resource (of a group outside *.k8s.io)
// whose controller never wrote a status is judged only on existing, and
// the settles and recovers verdicts name it (their "bound" figure) so
// that an override can be bound for it. In a faulted run, once every
// change has been made, an object of an applied kind whose objects all
// ended every settled clean reference run with a status is not ready
// without one, unless an override decides the kind.
type Readiness struct {
	// Overrides decide readiness for kinds that follow no status
	// convention.
	Overrides []ReadinessOverride `json:"overrides,omitempty"`
}

// ReadinessOverride says an object of Kind is ready when the field at Path
// has Value (compared as text), or, with Exists, when the field is there
// at all. Path "" with Exists: the object exists. Kind is an applied
// object's, or that of an object they own: a built-in kind, or one a CRD
// of run.manifests defines.
type ReadinessOverride struct {
	Kind   string `json:"kind"`
	Path   string `json:"path,omitempty"`
	Value  string `json:"value,omitempty"`
	Exists bool   `json:"exists,omitempty"`
}

// Scope says whether objects of a kind live in a namespace, as the API
// server's discovery says (a RESTMapping's scope); an error when the
// cluster serves no such kind.
type Scope func(schema.GroupVersionKind) (namespaced bool, err error)

// podMakers are the built-in kinds, by group and kind, whose controllers
// make pods.
var podMakers = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}: true, {Group: "apps", Kind: "ReplicaSet"}: true,
	{Group: "apps", Kind: "StatefulSet"}: true, {Group: "apps", Kind: "DaemonSet"}: true,
	{Group: "batch", Kind: "Job"}: true, {Group: "batch", Kind: "CronJob"}: true,
	{Kind: "ReplicationController"}: true, {Kind: "Pod"}: true,
}

// PodMaker names the first of capabilities.reconciledObjects.objects
// that is a pod or a built-in workload that makes pods (a Deployment, a
// Job): its pods stay Pending on a cluster without nodes. "" when none
// is, or the objects cannot be read (the suites say why).
func (f *File) PodMaker() string {
	objs, err := f.SteadyObjects(Vars{Namespace: "n"}, func(schema.GroupVersionKind) (bool, error) { return true, nil })
	if err != nil {
		return ""
	}
	for _, o := range objs {
		if podMakers[o.GroupVersionKind().GroupKind()] {
			return o.GetKind() + "/" + o.GetName()
		}
	}
	return ""
}

// SteadyObjects are capabilities.reconciledObjects.objects filled in with v (its
// Namespace), in the order given: each of a namespaced kind (scope) set
// into that namespace, each of a cluster-scoped kind into none, its name
// carrying the namespace (CarriesNamespace).
func (f *File) SteadyObjects(v Vars, scope Scope) ([]*unstructured.Unstructured, error) {
	s := f.Capabilities.ReconciledObjects
	if s == nil {
		return nil, nil
	}
	var out []*unstructured.Unstructured
	for i, entry := range s.Objects {
		field := fmt.Sprintf("capabilities.reconciledObjects.objects[%d]", i)
		objs, err := f.steadyEntry(entry, v)
		if err != nil {
			return nil, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: err.Error()}
		}
		for _, o := range objs {
			namespaced, err := scope(o.GroupVersionKind())
			if err != nil {
				return nil, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: fmt.Sprintf("the cluster does not serve %s (%v)", o.GroupVersionKind(), err),
					Expected: "a kind the cluster or the subject's manifests define"}
			}
			if namespaced {
				o.SetNamespace(v.Namespace)
				continue
			}
			o.SetNamespace("")
			if !CarriesNamespace(o.GetName(), v.Namespace) {
				return nil, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: fmt.Sprintf("%s %q is cluster-scoped and its name does not carry the spec's namespace", o.GetKind(), o.GetName()),
					Expected: "a name made of {{.Namespace}} and more, such as {{.Namespace}}-" + o.GetName() + " (the runs share the cluster: each run's cluster-scoped objects must be its own), and the same name in the changes and references that name it"}
			}
		}
		out = append(out, objs...)
	}
	return out, nil
}

// CarriesNamespace is whether name holds ns as a word of its own, not
// inside a longer word of letters and digits ({{.Namespace}}-selfsigned
// does, {{.Namespace}}x does not): how the end-state comparison masks a
// run's namespace in names and values, so that two runs' objects match.
func CarriesNamespace(name, ns string) bool {
	return ns != "" && namespaceWord(ns).MatchString(name)
}

// namespaceWord matches ns as a word of its own, with the characters
// around it (${1}, ${2}).
func namespaceWord(ns string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^a-z0-9])` + regexp.QuoteMeta(ns) + `($|[^a-z0-9])`)
}

func (f *File) steadyEntry(entry any, v Vars) ([]*unstructured.Unstructured, error) {
	var docs []byte
	switch e := entry.(type) {
	case map[string]any:
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		docs = b
	case string:
		files, err := f.manifest(e)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			docs = append(docs, []byte("\n---\n")...)
			docs = append(docs, b...)
		}
	default:
		return nil, fmt.Errorf("%s is neither a manifest nor a file", mismatch(entry))
	}
	text, err := Expand(string(docs), v)
	if err != nil {
		return nil, err
	}
	ms, err := documents([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("not a YAML manifest: %v", err)
	}
	var out []*unstructured.Unstructured
	for _, m := range ms {
		u := &unstructured.Unstructured{Object: m}
		switch {
		case u.GetAPIVersion() == "" || u.GetKind() == "":
			return nil, errors.New("a manifest without apiVersion or kind")
		case u.GetName() == "":
			return nil, fmt.Errorf("%s has no metadata.name", u.GetKind())
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, errors.New("no manifest")
	}
	return out, nil
}

// IsShared is whether the steady-state binding declares obj's kind or obj
// itself shared: left behind by design.
// A cluster-scoped object's name is given as the binding gives it,
// {{.Namespace}} and all.
func (s *ReconciledObjects) IsShared(kind, name string) bool {
	return slices.Contains(s.Shared, kind) || slices.Contains(s.Shared, kind+"/"+name)
}

// builtinKind says whether kind is a built-in kind of client-go (an
// object's, with metadata: not a list, options or an event of a watch).
func builtinKind(kind string) bool {
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Kind != kind || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		if _, ok := reflect.New(t).Interface().(metav1.Object); ok {
			return true
		}
	}
	return false
}

// documents are the YAML (or JSON) documents of data, each read as a map;
// empty ones are left out.
func documents(data []byte) ([]map[string]any, error) {
	var out []map[string]any
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

// DefinedKinds are the kinds the CustomResourceDefinitions in files
// define, sorted, each once. Each document is read as a map: an object of
// another shape beside a CRD is no reason to stop reading; a file that is
// no YAML is an error naming it.
func DefinedKinds(files []string) ([]string, error) {
	var out []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		docs, err := documents(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, doc := range docs {
			if defined, _, _ := unstructured.NestedString(doc, "spec", "names", "kind"); doc["kind"] == "CustomResourceDefinition" && defined != "" {
				out = append(out, defined)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// crdKinds are the kinds the CRDs of run.manifests define; a manifest
// that cannot be read is left to its own check (run.manifests).
func (f *File) crdKinds() []string {
	var files []string
	for _, m := range f.Run.Manifests {
		if fs, err := f.manifest(m); err == nil {
			files = append(files, fs...)
		}
	}
	var out []string
	for _, file := range files {
		if kinds, err := DefinedKinds([]string{file}); err == nil {
			out = append(out, kinds...)
		}
	}
	return out
}

func (s *ReconciledObjects) validate(f *File, bad func(field, problem, expected string)) {
	const at = "capabilities.reconciledObjects."
	if f.APIVersion != APIVersion {
		bad("capabilities.reconciledObjects", "not in "+f.APIVersion, "apiVersion "+APIVersion+" (nothing else changes)")
	}
	if len(s.Objects) == 0 {
		bad(at+"objects", "missing", "the objects the controller reconciles: inline manifests, or YAML files relative to the subject file")
	}
	kinds := map[string]bool{}
	names := map[ObjectName]bool{}
	// A namespace no name holds by chance: the names are shown as the
	// objects give them, {{.Namespace}} and all.
	const sampleNS = "sample-ns"
	sample := Vars{Namespace: sampleNS, Name: sampleVars.Name, UpstreamDir: f.options.UpstreamDir, KubeBinDir: f.options.KubeBinDir}
	given := namespaceWord(sampleNS)
	for i, entry := range s.Objects {
		objs, err := f.steadyEntry(entry, sample)
		if err != nil {
			bad(fmt.Sprintf("%sobjects[%d]", at, i), err.Error(), "a manifest with apiVersion, kind and metadata.name, or a YAML file of them relative to the subject file (templates of {{.Namespace}})")
			continue
		}
		for _, o := range objs {
			kinds[o.GetKind()] = true
			names[ObjectName{o.GetKind(), o.GetName()}] = true
		}
	}
	known := func() string {
		var l []string
		for n := range names {
			l = append(l, given.ReplaceAllString(n.String(), "${1}{{.Namespace}}${2}"))
		}
		slices.Sort(l)
		return strings.Join(l, ", ")
	}
	checkPath := func(field, p string) {
		if p != "" && !pathPattern.MatchString(p) {
			bad(field, fmt.Sprintf("%q is not a field path", p), "field names joined by dots, such as status.phase")
		}
	}
	for i := range s.Changes {
		c := &s.Changes[i]
		field := fmt.Sprintf("%schanges[%d]", at, i)
		set := 0
		for _, b := range []bool{c.Patch != nil, c.Delete != nil, c.Scale != nil} {
			if b {
				set++
			}
		}
		if set != 1 {
			bad(field, fmt.Sprintf("%d of patch, delete and scale set", set), "exactly one of patch, delete and scale")
			continue
		}
		if t, err := c.TargetIn(sample); err != nil {
			bad(field, err.Error(), "an object of capabilities.reconciledObjects.objects, by kind and name, the name as the object gives it ({{.Namespace}}-selfsigned)")
		} else if len(names) > 0 && !names[t] {
			bad(field, fmt.Sprintf("%s is not among the objects", c.Target()), "an object of capabilities.reconciledObjects.objects, by kind and name (as the object gives it, {{.Namespace}} and all): one of "+known())
		}
		if c.Delete != nil && c.Delete.PropagationPolicy != "" && !slices.Contains(PropagationPolicies, c.Delete.PropagationPolicy) {
			bad(field+".delete.propagationPolicy", fmt.Sprintf("%q is not a propagation policy", c.Delete.PropagationPolicy), "one of "+strings.Join(PropagationPolicies, ", ")+", or none for the API server's default")
		}
		if c.Patch != nil && len(c.Patch.Merge) == 0 {
			bad(field+".patch.merge", "missing", "a merge patch, such as {spec: {size: 2}}")
		}
		if c.Scale != nil {
			if c.Scale.Path == "" {
				c.Scale.Path = "spec.replicas"
			}
			checkPath(field+".scale.path", c.Scale.Path)
			if c.Scale.Value < 0 {
				bad(field+".scale.value", fmt.Sprintf("%d", c.Scale.Value), "a replica count of 0 or more")
			}
		}
	}
	// An owned object's kind (a Deployment an operator makes, a custom
	// resource it creates) may need a readiness override as much as an
	// applied one's: a built-in kind, or one a CRD of run.manifests
	// defines, is served for the objects.
	var crdKinds []string
	for _, o := range s.Readiness.Overrides {
		if o.Kind != "" && !kinds[o.Kind] {
			crdKinds = f.crdKinds()
			break
		}
	}
	for i, o := range s.Readiness.Overrides {
		field := fmt.Sprintf("%sreadiness.overrides[%d]", at, i)
		switch {
		case o.Kind == "":
			bad(field+".kind", "missing", "the kind the override decides readiness for")
		case len(kinds) > 0 && !kinds[o.Kind] && !slices.Contains(crdKinds, o.Kind) && !builtinKind(o.Kind):
			bad(field+".kind", fmt.Sprintf("%q is not the kind of any of the objects, of a CRD in run.manifests, nor a built-in kind", o.Kind), "a kind among the objects or of what they own: one the subject's CRDs define, or a built-in kind such as Deployment")
		}
		checkPath(field+".path", o.Path)
		switch {
		case o.Path == "" && !o.Exists:
			bad(field, "neither a path nor exists", "a path and the value it must have, or exists: true")
		case o.Exists && o.Value != "":
			bad(field, "both exists and a value", "a value, or exists: true")
		case !o.Exists && o.Value == "":
			bad(field+".value", "missing", "the value (as text) that makes the object ready, or exists: true")
		}
	}
	for i, entry := range s.Ignore {
		p := entry
		if kind, path, ok := strings.Cut(entry, ":"); ok && kind != "" && !strings.ContainsAny(kind, ".[") {
			p = path
		}
		if whole := strings.TrimSuffix(p, "."); slices.Contains(wholeFields, whole) {
			bad(fmt.Sprintf("%signore[%d]", at, i), fmt.Sprintf("%q masks a whole %s: the comparison would say nothing of it", entry, whole), "a field below it, such as status.lastSyncTime, on one kind as Kind:path where it varies on that kind only")
			continue
		}
		if before, _, ok := strings.Cut(p, "["); !ok {
			checkPath(fmt.Sprintf("%signore[%d]", at, i), p)
		} else if !conditionPathPattern.MatchString(p) || (before != "conditions" && !strings.HasSuffix(before, ".conditions")) {
			bad(fmt.Sprintf("%signore[%d]", at, i), fmt.Sprintf("%q is not a field path", p), "field names joined by dots, such as status.phase; a condition by its type: status.conditions[Active], status.conditions[example.com/Synced]")
		}
		if p == "" {
			bad(fmt.Sprintf("%signore[%d]", at, i), "empty", "a dotted field path such as status.lastSyncTime")
		}
	}
	for i, r := range s.Record {
		if !resourcePattern.MatchString(r) || strings.Contains(r, "/") {
			bad(fmt.Sprintf("%srecord[%d]", at, i), fmt.Sprintf("%q is not a resource", r), "a plural resource name with its group but for the core group, such as endpointslices.discovery.k8s.io")
		}
	}
	for i, sh := range s.Shared {
		kind, name, _ := strings.Cut(sh, "/")
		if kind == "" || strings.Contains(name, "/") {
			bad(fmt.Sprintf("%sshared[%d]", at, i), fmt.Sprintf("%q", sh), "a kind (ConfigMap) or one object (ConfigMap/ca-bundle)")
		}
	}
	for field, d := range map[string]*Duration{"settleWithin": &s.SettleWithin, "settleWindow": &s.SettleWindow, "quietWindow": &s.QuietWindow, "goneWithin": &s.GoneWithin} {
		def := map[string]time.Duration{"settleWithin": DefaultSettleWithin, "settleWindow": DefaultSettleWindow, "quietWindow": DefaultQuietWindow, "goneWithin": DefaultGoneWithin}[field]
		switch {
		case d.Duration == 0:
			d.Duration = def
		case d.Duration < 0 || d.Duration > 30*time.Minute:
			bad(at+field, d.String()+" is out of range", fmt.Sprintf("a duration above 0s and at most 30m (default %s)", def))
		case field == "quietWindow" && d.Duration < MinQuietWindow:
			bad(at+field, d.String()+" is too short to tell a quiet controller from one that writes every few seconds", fmt.Sprintf("at least %s (default %s)", MinQuietWindow, def))
		}
	}
}
