package judge

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The end state of a steady-state run and the fault-free reference runs
// it is compared against (same-end-state, no-churn).
var (
	// FactSteadyEnd is when the run's end state was taken (EndMark).
	FactSteadyEnd = Fact[EndMark]{Name: "reconcile/end"}
	// FactSteadyReferences are the end states of the fault-free
	// reference runs of the same objects and changes, as JSON
	// ([]EndState): recorded in the faulted run's evidence so that it is
	// re-judged offline without the reference runs' own.
	FactSteadyReferences = Fact[[]*EndState]{Name: "reconcile/references"}
	// FactSteadyIgnore is the subject's ignore paths, as JSON ([]string).
	FactSteadyIgnore = Fact[[]string]{Name: "reconcile/ignore"}
)

// EndMark is when a run's end state was taken (At, once the last phase
// settled or its T+W passed), the objects it had then (their joined keys)
// and when they were first applied (what the controller wrote from then
// on is the run's).
type EndMark struct {
	Applied time.Time `json:"applied"`
	At      time.Time `json:"at"`
	Objects []string  `json:"objects"`
	// Namespace is the run's; absent (evidence made before it was
	// recorded), the first namespaced object's.
	Namespace string `json:"namespace,omitempty"`
	// Made counts the changes the run had made when its end state was
	// taken, of the Changes its binding has: a run that stopped before
	// the last (a recovery that did not settle) ends in a state the
	// reference runs, which made them all, cannot be compared with
	// (SameEndStateUnbound). Both 0 in evidence from before they were
	// recorded.
	Made    int `json:"made,omitempty"`
	Changes int `json:"changes,omitempty"`
}

// EndStateVersion is the version of what an end state covers. Version 2
// adds what the controller created or changed without an ownerReference
// from the objects (Written), compares the finalizers and ownerReferences
// of everything it covers, and names the object a uid refers to (Others);
// an end state of an earlier version (evidence kept from before) is
// compared with another only on what both cover. Version 3 compares the
// applied objects' fields beside their status too: those someone set
// (what the harness applied and changed, what the controller wrote: a
// reference it should have cleared, a field it fills in), not those the
// API server allocated or defaulted (rootFields).
const EndStateVersion = 3

// The versions that brought what an end state covers (EndStateVersion).
const (
	endStateWritten    = 2
	endStateRootFields = 3
)

// EndState is one run's end state: the applied objects and everything they
// owned (by ownerReferences, transitively), and every object the
// controller created or changed in the run's namespace or cluster-scoped
// for the run (and what those own), as recorded at At, and what the
// controller created and deleted from the objects' application to then.
type EndState struct {
	// Version is EndStateVersion when it was made (0: before versions).
	Version int `json:"version,omitempty"`
	// Spec is the spec whose run it is.
	Spec string `json:"spec"`
	// Namespace is the run's (masked in every value).
	Namespace string `json:"namespace"`
	// Applied is when the objects were applied, At when the end state
	// was taken.
	Applied time.Time `json:"applied"`
	At      time.Time `json:"at"`
	// NotReady says what was not ready at At; empty when all was.
	NotReady string `json:"notReady,omitempty"`
	// Roots are the joined keys of the applied objects that existed at At.
	Roots []string `json:"roots"`
	// Written are the joined keys, among Objects, of what the controller
	// created or changed (and what those own) that the roots do not own.
	Written []string `json:"written,omitempty"`
	// Objects are the roots, what they owned and what was written, by
	// joined key (managedFields left out; of a root's fields beside its
	// metadata and status, from version 3, only those someone set:
	// rootFields).
	Objects map[string]map[string]any `json:"objects"`
	// Others names, by uid, every other object the run's histories held
	// at At (its identity, Identities): what a uid in a compared field
	// may refer to. A uid no recorded object held is a reference to
	// nothing.
	Others map[string]string `json:"others,omitempty"`
	// Creates counts the controller's answered creates (a server-side
	// apply that made an object included) by resource (plural, with its
	// group but for the core group), of the run's namespace and its
	// cluster-scoped objects; of what the run records only (what the API
	// server never stores, FactSteadyUnstored, no history records).
	Creates map[string]int `json:"creates"`
	// Deletes counts the controller's answered deletes (one by one or by
	// collection) by the identity of the object deleted (Identities).
	Deletes map[string]int `json:"deletes"`
}

// EndStateOf is the end state of the run the evidence records, at its end
// mark (FactSteadyEnd). Missing evidence is not evaluated.
func EndStateOf(e *evidence.Evidence) (*EndState, error) {
	r := read(e)
	m := get(r, FactSteadyEnd)
	// The end state comes after every change: the kinds the references
	// taught are owed a status are not ready without one.
	src, overrides := r.steadySource(), WithObjectsOwed(WithStatusOwed(r.overrides(), r.statusOwed()), r.objectsOwed())
	histories := get(r, FactSteadyHistories)
	named := r.clusterScoped()
	r.proxyLogs()
	if err := r.missing(); err != nil {
		return nil, err
	}
	if len(m.Objects) == 0 {
		return nil, fmt.Errorf("%w: fact %q names no object", oracle.ErrNotEvaluated, FactSteadyEnd)
	}
	s := src.StateAt(m.At)
	ns := m.Namespace
	if ns == "" {
		ns = keysNamespace(m.Objects)
	}
	scope := runScope{ns: ns, named: named}
	es := &EndState{Version: EndStateVersion, Spec: e.Spec, Applied: m.Applied, At: m.At, Namespace: ns, Objects: map[string]map[string]any{},
		Others: map[string]string{}, Creates: map[string]int{}, Deletes: map[string]int{}}
	for _, k := range m.Objects {
		if s[k] != nil {
			es.Roots = append(es.Roots, k)
		}
	}
	writes := controllerWrites(e, m.Applied, m.At)
	var creates []write
	for _, w := range writes {
		// Of what the run records: what the API server never stores (an
		// access review at each start) no history records, and it is no
		// object made, nor churn.
		if w.created && scope.has(w.resource, w.namespace, w.name) && slices.Contains(histories, historyOf(w.resource, w.namespace, ns)) {
			creates = append(creates, w)
			es.Creates[w.resource]++
		}
	}
	written := slices.Clone(m.Objects)
	for k := range createdKeys(creates, s, histories, ns, firstSeenIfNeeded(creates, src, m.Applied, m.At)) {
		written = append(written, k)
	}
	for _, w := range append(writes, cutWrites(e, m.Applied, m.At)...) {
		cut := w.verb == "create" && !w.created
		if (w.verb == "update" || w.verb == "patch" || cut) && !w.created && w.name != "" && scope.has(w.resource, w.namespace, w.name) {
			if k := SteadyKey(historyOf(w.resource, w.namespace, ns), w.namespace, w.name); s[k] != nil {
				written = append(written, k)
			}
		}
	}
	rootsOwn := owned(s, m.Objects)
	for _, k := range owned(s, written) {
		o := s[k].DeepCopy()
		if slices.Contains(es.Roots, k) {
			rootFields(o.Object)
		}
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
		es.Objects[k] = o.Object
		if !slices.Contains(rootsOwn, k) {
			es.Written = append(es.Written, k)
		}
	}
	ids := Identities(s, ns)
	for k, o := range s {
		if _, ok := es.Objects[k]; !ok {
			es.Others[string(o.GetUID())] = ids[k]
		}
	}
	if ok, why := AllReady(m.Objects, overrides)(s); !ok {
		es.NotReady = why
	}
	// A delete of an object no history recorded has no identity; nor
	// has the faulted run's of the same resource, which no-churn leaves
	// not evaluated.
	dels, _ := controllerDeletes(e, src, histories, scope, m.Applied, m.At, nil)
	for _, d := range dels {
		es.Deletes[d.identity]++
	}
	return es, nil
}

// rootFields keeps, of an applied object's fields beside its metadata and
// status, those a manager set, as its managedFields name them: what the
// harness applied and changed and what any controller wrote, down to the
// fields of a map (a list is kept whole when any of it was set). What
// no manager set, the API server allocated or defaulted (a Service's
// cluster IP, a node port): it may differ from run to run by chance and
// is no one's to compare. An object with no managedFields keeps none.
// (structured-merge-diff's ExtractItems would need the kind's schema: an
// atomic map, a Service's selector, is set as one leaf, which without
// the schema it extracts as nothing.)
func rootFields(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	set := map[string]any{}
	for _, e := range entries {
		entry, _ := e.(map[string]any)
		fields, _ := entry["fieldsV1"].(map[string]any)
		mergeFieldSets(set, fields)
	}
	for k, v := range obj {
		if k == "apiVersion" || k == "kind" || k == "metadata" || k == "status" {
			continue
		}
		sub, ok := set["f:"+k]
		if !ok {
			delete(obj, k)
			continue
		}
		obj[k] = keepSet(v, sub)
	}
}

// mergeFieldSets adds the field set from (a managedFields entry's
// fieldsV1: "f:name" keys for fields, others for list items and the
// field itself) to into.
func mergeFieldSets(into, from map[string]any) {
	for k, v := range from {
		sub, _ := v.(map[string]any)
		have, ok := into[k].(map[string]any)
		if !ok {
			have = map[string]any{}
			into[k] = have
		}
		mergeFieldSets(have, sub)
	}
}

// keepSet is v with only the fields of set when v is a map whose fields
// set names one by one; v whole otherwise (a value, a list, a map set
// whole).
func keepSet(v, set any) any {
	m, isMap := v.(map[string]any)
	fields, _ := set.(map[string]any)
	byField := false
	for k := range fields {
		byField = byField || strings.HasPrefix(k, "f:")
	}
	if !isMap || !byField {
		return v
	}
	out := map[string]any{}
	for k, item := range m {
		if sub, ok := fields["f:"+k]; ok {
			out[k] = keepSet(item, sub)
		}
	}
	return out
}

// firstSeenIfNeeded is when each uid was first seen in src between from
// and to, for matching creates whose answer the proxy did not read
// (createdKeys); nil when every create names its object.
func firstSeenIfNeeded(creates []write, src oracle.Source, from, to time.Time) map[string]time.Time {
	if !slices.ContainsFunc(creates, func(w write) bool { return w.uid == "" && w.name == "" }) {
		return nil
	}
	out := map[string]time.Time{}
	for _, o := range src.StateAt(from) {
		out[string(o.GetUID())] = from
	}
	src.ReplayAfter(from, func(at time.Time, s oracle.State) {
		if at.After(to) {
			return
		}
		for _, o := range s {
			if _, ok := out[string(o.GetUID())]; !ok {
				out[string(o.GetUID())] = at
			}
		}
	})
	return out
}

// keyNamespace is the namespace of a SteadyKey ("" for a cluster-scoped
// object's).
func keyNamespace(key string) string {
	_, nsName, _ := strings.Cut(key, ":")
	ns, _, _ := strings.Cut(nsName, "/")
	return ns
}

// SteadyKeyNamespace is the namespace of a joined key of the steady-state
// histories: "" for a cluster-scoped object's.
func SteadyKeyNamespace(key string) string { return keyNamespace(key) }

// keysNamespace is the namespace of the first namespaced object of keys
// (SteadyKeys): the run's, in evidence that does not record it apart.
func keysNamespace(keys []string) string {
	for _, k := range keys {
		if ns := keyNamespace(k); ns != "" {
			return ns
		}
	}
	return ""
}

// deleted is one object the controller deleted, by its identity, and by
// its identity as end states are compared (with names that vary between
// clean runs masked: identities' vary).
type deleted struct {
	identity, compared, key string
	at                      time.Time
}

// controllerDeletes are the controller's answered deletes begun within
// [from, to] of the run's objects (scope), one by one or by collection
// (each object a delete of a collection took: deletedBy), each named by
// the identity of the object as recorded just before; unknown lists
// those no history recorded.
func controllerDeletes(e *evidence.Evidence, src oracle.Source, histories []string, scope runScope, from, to time.Time, vary map[string]bool) (out []deleted, unknown []string) {
	for _, w := range controllerWrites(e, from, to) {
		if (w.verb != "delete" && w.verb != "deletecollection") || !scope.has(w.resource, w.namespace, w.name) {
			continue
		}
		h := historyOf(w.resource, w.namespace, scope.ns)
		what := fmt.Sprintf("%s %s at %s", w.resource, strings.TrimPrefix(w.namespace+"/"+w.name, "/"), w.at.Format("15:04:05.000"))
		if w.verb == "deletecollection" {
			what = fmt.Sprintf("%s in %q by collection (labelSelector %q) at %s", w.resource, w.namespace, w.selector, w.at.Format("15:04:05.000"))
		}
		if !slices.Contains(histories, h) {
			unknown = append(unknown, what)
			continue
		}
		s := src.StateAt(w.at)
		var keys []string
		if w.verb == "delete" {
			key := SteadyKey(h, w.namespace, w.name)
			if s[key] == nil {
				unknown = append(unknown, what)
				continue
			}
			keys = []string{key}
		} else {
			keys = deletedBy(w, src, scope.ns)
		}
		ids, cmp := Identities(s, scope.ns), identities(s, scope.ns, vary)
		for _, key := range keys {
			out = append(out, deleted{identity: ids[key], compared: cmp[key], key: key, at: w.at})
		}
	}
	return out, unknown
}

// Identities names the objects of s as two runs of the same objects can
// match them: by kind and name, a generated name's suffix masked
// (metadata.generateName followed by *), a CronJob's Job's scheduled
// minute masked (scheduledName), a generated or scheduled name another
// name begins with masked there too, and the run's namespace ns written
// {{.Namespace}}, behind the identities of its owners (the controller
// owner, or else the first one in s): Claim/steady > Composite/steady.
func Identities(s oracle.State, ns string) map[string]string { return identities(s, ns, nil) }

// identities is Identities with the names of the objects of the groups
// vary (an owner's identity, " > " and a kind; a kind alone for objects
// with no owner) masked whole, as generated: names the clean runs showed
// differ from run to run, such as one derived from an owner's uid.
func identities(s oracle.State, ns string, vary map[string]bool) map[string]string {
	byUID := map[string]string{}
	for k, o := range s {
		byUID[string(o.GetUID())] = k
	}
	out := map[string]string{}
	varying := varyingNames(s)
	var name func(k string, depth int) string
	name = func(k string, depth int) string {
		if id, ok := out[k]; ok {
			return id
		}
		o := s[k]
		parent := ""
		if owner := ownerKey(o, byUID); owner != "" && owner != k && depth < 16 {
			parent = name(owner, depth+1) + " > "
		}
		n := maskNamespace(unvaried(maskedName(o), varying), ns)
		if vary[parent+o.GetKind()] {
			n = "*"
		}
		id := parent + o.GetKind() + "/" + n
		out[k] = id
		return id
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		name(k, 0)
	}
	return out
}

func ownerKey(o *unstructured.Unstructured, byUID map[string]string) string {
	refs := o.GetOwnerReferences()
	for _, ref := range refs {
		if ref.Controller != nil && *ref.Controller && byUID[string(ref.UID)] != "" {
			return byUID[string(ref.UID)]
		}
	}
	for _, ref := range refs {
		if k := byUID[string(ref.UID)]; k != "" {
			return k
		}
	}
	return ""
}

func maskedName(o *unstructured.Unstructured) string {
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(o.GetName(), g) {
		return g + "*"
	}
	if m, ok := scheduledName(o); ok {
		return m
	}
	return o.GetName()
}

// scheduledName is the name of a CronJob's Job with its scheduled time
// masked: the CronJob controller names each Job after its CronJob and the
// minute it was scheduled for (<cronjob>-<minutes since the epoch>), so
// two runs of the same objects, begun at other minutes, name theirs
// differently: tick-29928955 is tick-*.
func scheduledName(o *unstructured.Unstructured) (string, bool) {
	if o.GetKind() != "Job" {
		return "", false
	}
	for _, ref := range o.GetOwnerReferences() {
		if ref.Kind != "CronJob" || ref.Controller == nil || !*ref.Controller {
			continue
		}
		if minute, ok := strings.CutPrefix(o.GetName(), ref.Name+"-"); ok && minute != "" && strings.Trim(minute, "0123456789") == "" {
			return ref.Name + "-*", true
		}
	}
	return "", false
}

// varyingNames are the names of s that differ from run to run, longest
// first, each with its mask (maskedName): a generated name (w-abcde: w-*),
// what the objects its owner makes are often named after (a Job named
// w-abcde names its pods w-abcde-xyz12), and a CronJob's Job's, what its
// pods are named after.
func varyingNames(s oracle.State) [][2]string {
	var out [][2]string
	for _, o := range s {
		if m := maskedName(o); m != o.GetName() {
			out = append(out, [2]string{o.GetName(), m})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return out
}

// unvaried is name with a varying name it begins with masked (varying:
// varyingNames): the pod tick-29928955-x7k2p of the Job tick-29928955 is
// tick-*-x7k2p, the pods w-abcde-* of the Job w-abcde are w-*-*.
func unvaried(name string, varying [][2]string) string {
	for _, p := range varying {
		if name == p[0] || strings.HasPrefix(name, p[0]+"-") {
			return p[1] + name[len(p[0]):]
		}
	}
	return name
}

// maskNamespace writes each whole occurrence of ns in v (not inside a
// longer word of letters and digits) as {{.Namespace}}.
func maskNamespace(v, ns string) string {
	if ns == "" || !strings.Contains(v, ns) {
		return v
	}
	return namespaceMask(ns)(v)
}

// namespaceMask is maskNamespace for one namespace.
func namespaceMask(ns string) func(string) string {
	re := regexp.MustCompile(`(^|[^a-z0-9])` + regexp.QuoteMeta(ns) + `($|[^a-z0-9])`)
	return func(v string) string {
		for strings.Contains(v, ns) {
			next := re.ReplaceAllString(v, "${1}{{.Namespace}}${2}")
			if next == v {
				return v
			}
			v = next
		}
		return v
	}
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// masker masks in a run's values what differs between any two runs: uids,
// timestamps, generated names, the run's namespace and its pods' and
// their nodes' addresses.
type masker struct {
	ns func(string) string
	// uids names each uid of the end state's objects and, with
	// uidRefs, of the other objects recorded (EndState.Others) by its
	// object's identity: a uid in a field is a reference, masked to the
	// object it refers to, and one no recorded object holds is a
	// reference to nothing. Without uidRefs (an end state of an earlier
	// version), every uid is masked alike.
	uids      map[string]string
	uidRefs   bool
	generated [][2]string // name, masked; longest first
	// addrs are the addresses of the end state's pods and of their nodes,
	// by value, masked to the pod's identity (Identities) and to "a node":
	// what the network and the scheduler chose, as a pod's node is. A
	// controller that copies its head pod's address into a status (a
	// RayCluster's) writes another address in every run but names the
	// same pod; one that names another pod's address, or an address no
	// pod of the run has (a pod gone), is not masked to the same value.
	addrs map[string]string
}

// newMasker masks the values of state s of namespace ns; ids are its
// objects' identities (Identities), which name a pod's address.
func newMasker(s oracle.State, ns string, ids map[string]string) *masker {
	m := &masker{ns: func(v string) string { return v }, uids: map[string]string{}, addrs: map[string]string{}}
	if ns != "" {
		m.ns = namespaceMask(ns)
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		o := s[k]
		m.uids[string(o.GetUID())] = ids[k]
		if o.GetKind() == "Pod" {
			m.podAddresses(o.Object, ids[k])
		}
		if g := maskedName(o); g != o.GetName() {
			m.generated = append(m.generated, [2]string{o.GetName(), g})
		}
	}
	slices.SortFunc(m.generated, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return m
}

// podAddresses adds a pod's addresses (status.podIP, status.podIPs),
// masked to its identity id, and its node's (status.hostIP,
// status.hostIPs) to m.addrs. A node's address wins over a pod's (a pod
// on the host network has its node's), and the first pod (in key order)
// over a later one with the same address, so the masks do not depend on
// the order the state is read in. Fields of another shape are skipped.
func (m *masker) podAddresses(pod map[string]any, id string) {
	status, _ := pod["status"].(map[string]any)
	addresses := func(field string) []string {
		var out []string
		if v, _ := status[field].(string); v != "" {
			out = append(out, v)
		}
		list, _ := status[field+"s"].([]any)
		for _, item := range list {
			if c, _ := item.(map[string]any); c != nil {
				if v, _ := c["ip"].(string); v != "" {
					out = append(out, v)
				}
			}
		}
		return out
	}
	for _, a := range addresses("hostIP") {
		m.addrs[a] = "<a node's address>"
	}
	for _, a := range addresses("podIP") {
		if _, taken := m.addrs[a]; !taken {
			m.addrs[a] = "<address of " + id + ">"
		}
	}
}

func (m *masker) value(v string) string {
	id, known := m.uids[v]
	switch {
	case known && m.uidRefs:
		return "<uid of " + id + ">"
	case m.uidRefs && uuidPattern.MatchString(v):
		return "<uid of no recorded object>"
	case known || uuidPattern.MatchString(v):
		return "<uid>"
	}
	if a, ok := m.addrs[v]; ok {
		return a
	}
	if _, err := time.Parse(time.RFC3339, v); err == nil {
		return "<time>"
	}
	return m.text(v)
}

// embeddedUUID is a uid inside a longer string: a file named after an
// object's namespace and uid (web-<uid>.yaml), a name derived from one.
var embeddedUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// text masks what varies from run to run inside a string, a value's or a
// map key's: a uid in it (as the object it names, or none: see value),
// the generated names and the run's namespace.
func (m *masker) text(v string) string {
	if m.uidRefs {
		v = embeddedUUID.ReplaceAllStringFunc(v, func(u string) string {
			if id, ok := m.uids[u]; ok {
				return "<uid of " + id + ">"
			}
			return "<uid of no recorded object>"
		})
	}
	for _, g := range m.generated {
		v = strings.ReplaceAll(v, g[0], g[1])
	}
	return m.ns(v)
}

// flatten adds v's leaves to out, by dotted path (list items [i], a
// conditions list's by type: conditions[Ready]), each
// value as JSON, strings masked.
func (m *masker) flatten(path string, v any, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		// An empty map is a value, but an object's whole content empty
		// is no field (its absence from another run's is said by the
		// fields that one has).
		if len(x) == 0 && path != "" {
			out[path] = "{}"
		}
		// A key may carry what varies too (a ConfigMap's file named
		// after an object's namespace and uid).
		for k, item := range x {
			m.flatten(join(m.text(k)), item, out)
		}
	case []any:
		if len(x) == 0 {
			out[path] = "[]"
		}
		types := conditionTypes(path, x)
		for i, item := range x {
			if types != nil {
				m.flatten(fmt.Sprintf("%s[%s]", path, types[i]), item, out)
				continue
			}
			m.flatten(fmt.Sprintf("%s[%d]", path, i), item, out)
		}
	case string:
		out[path] = strconv.Quote(m.value(x))
	default:
		b, _ := json.Marshal(x)
		out[path] = string(b)
	}
}

// conditionTypes are the types of a conditions list's items, in order,
// when path is one (its last field is conditions) and each item has a
// type of its own: conditions are compared by type, not by place (a
// controller may add them in any order), and an ignore path names one as
// status.conditions[Active]. Nil otherwise.
func conditionTypes(path string, items []any) []string {
	if path != "conditions" && !strings.HasSuffix(path, ".conditions") {
		return nil
	}
	types := make([]string, len(items))
	for i, item := range items {
		obj, _ := item.(map[string]any)
		t, _ := obj["type"].(string)
		if t == "" || slices.Contains(types[:i], t) {
			return nil
		}
		types[i] = t
	}
	return types
}

// endObject is one object of an end state as compared: an applied
// object's status, labels, annotations, finalizers and ownerReferences;
// any other object's content but metadata and status (spec, data...),
// with its labels, annotations, finalizers and ownerReferences.
type endObject struct {
	kind  string
	flat  map[string]string
	canon string
}

// comparison is how end states are compared with each other: the groups
// whose names the clean runs showed vary (identities' vary), whether
// every end state compared is of version 2 at least (current: then what
// the controller wrote without an ownerReference, finalizers,
// ownerReferences and the objects uids refer to are compared too), and
// of version 3 (rootFields: the applied objects' fields that someone
// set, beside their status); otherwise only what all versions cover.
type comparison struct {
	vary       map[string]bool
	current    bool
	rootFields bool
}

// comparisonOf is the comparison of ess, with no names learned to vary.
func comparisonOf(ess ...*EndState) comparison {
	c := comparison{current: true, rootFields: true}
	for _, es := range ess {
		c = c.with(es)
	}
	return c
}

// with is c narrowed to what es covers too.
func (c comparison) with(es *EndState) comparison {
	c.current = c.current && es.Version >= endStateWritten
	c.rootFields = c.rootFields && es.Version >= endStateRootFields
	return c
}

// comparedAs is the end state's objects by identity (several when
// generated names share one), each list in a stable order, as c compares
// them.
func (es *EndState) comparedAs(c comparison) map[string][]endObject {
	s := oracle.State{}
	for k, o := range es.Objects {
		if !c.current && slices.Contains(es.Written, k) {
			continue
		}
		s[k] = &unstructured.Unstructured{Object: o}
	}
	ids := identities(s, es.Namespace, c.vary)
	m := newMasker(s, es.Namespace, ids)
	if c.current {
		m.uidRefs = true
		for uid, id := range es.Others {
			if _, ok := m.uids[uid]; !ok {
				m.uids[uid] = id
			}
		}
	}
	out := map[string][]endObject{}
	for k, o := range s {
		content := map[string]any{}
		md, _ := o.Object["metadata"].(map[string]any)
		root := slices.Contains(es.Roots, k)
		if root {
			if st, ok := o.Object["status"]; ok {
				content["status"] = st
			}
		}
		if !root || c.rootFields {
			for f, v := range o.Object {
				if f != "apiVersion" && f != "kind" && f != "metadata" && f != "status" {
					content[f] = v
				}
			}
		}
		metaFields := []string{"labels", "annotations"}
		if c.current {
			metaFields = append(metaFields, "finalizers", "ownerReferences")
		} else if slices.Contains(es.Roots, k) {
			metaFields = nil
		}
		for _, f := range metaFields {
			if v, ok := md[f]; ok && v != nil {
				content["metadata."+f] = v
			}
		}
		eo := endObject{kind: o.GetKind(), flat: map[string]string{}}
		m.flatten("", content, eo.flat)
		// The fault proxy sets its mark on an object and takes it off
		// again before it answers a write 409 (a real conflict), but a
		// controller that copies its object's labels or annotations onto
		// others may have copied it meanwhile, and left it there: the
		// harness's mark, not the controller's state.
		delete(eo.flat, "metadata.labels."+proxy.ConflictMark)
		delete(eo.flat, "metadata.annotations."+proxy.ConflictMark)
		switch eo.kind {
		case "Pod":
			// The scheduler's choice, not the controller's.
			delete(eo.flat, "spec.nodeName")
		case "EndpointSlice", "Endpoints":
			// An endpoint's node (and the node's zone) is its pod's, the
			// scheduler's choice: a pod deleted and made again may land
			// on another node.
			for p := range eo.flat {
				if strings.HasSuffix(p, ".nodeName") || (eo.kind == "EndpointSlice" && strings.HasSuffix(p, ".zone")) {
					delete(eo.flat, p)
				}
			}
		}
		var lines []string
		for _, p := range slices.Sorted(maps.Keys(eo.flat)) {
			lines = append(lines, p+"="+eo.flat[p])
		}
		eo.canon = strings.Join(lines, "\n")
		out[ids[k]] = append(out[ids[k]], eo)
	}
	for id := range out {
		slices.SortFunc(out[id], func(a, b endObject) int { return strings.Compare(a.canon, b.canon) })
	}
	return out
}

// fieldDiff is one field in which two end states differ; path
// countPath when they have a different number of objects of the identity.
type fieldDiff struct {
	object, kind, path string
	ref, got           string
}

const countPath = "(objects)"

var indexPattern = regexp.MustCompile(`\[\d+\]`)

// mask is the key under which a differing field is masked: the object
// (its identity; generated siblings, one kind under one owner, share
// their group's) and its path without list indices (a field that varies
// varies in every item), or the identity and countPath. A field that
// varies on one object says nothing of the same field on another.
func (d fieldDiff) mask() string {
	if d.path == countPath {
		return d.object + "\x00" + countPath
	}
	return siblingGroup(d.object) + "\x00" + indexPattern.ReplaceAllString(d.path, "")
}

// siblingGroup is the group (its owner's identity, " > " and its kind) of
// an identity whose name is generated (ends in *), else the identity.
func siblingGroup(id string) string {
	owner, last, ok := cutLast(id, " > ")
	if !ok {
		owner, last = "", id
	}
	kind, name, _ := strings.Cut(last, "/")
	if !strings.HasSuffix(name, "*") {
		return id
	}
	if owner == "" {
		return kind
	}
	return owner + " > " + kind
}

// absent is how a field missing from one end state reads in a fieldDiff.
const absent = "absent"

func (d fieldDiff) String() string {
	if d.path == countPath {
		return fmt.Sprintf("%s: %s objects in the reference, %s after the faults", d.object, d.ref, d.got)
	}
	return fmt.Sprintf("%s %s: %s in the reference, %s after the faults", d.object, d.path, d.ref, d.got)
}

// diffEnds lists every field in which got differs from ref, in order.
// Generated siblings that hold the same contents in both, but for fields
// masked (nil: none), are the same (sameSiblings).
func diffEnds(ref, got map[string][]endObject, masked func(fieldDiff) bool) []fieldDiff {
	var out []fieldDiff
	ids := endIDs(ref, got)
	same, _ := sameSiblings(ids, ref, got, masked)
	for _, id := range ids {
		if same[id] {
			continue
		}
		r, g := ref[id], got[id]
		if len(r) != len(g) {
			kind := ""
			if len(r) > 0 {
				kind = r[0].kind
			} else {
				kind = g[0].kind
			}
			out = append(out, fieldDiff{object: id, kind: kind, path: countPath, ref: strconv.Itoa(len(r)), got: strconv.Itoa(len(g))})
			continue
		}
		for i, j := range pairing(r, g, masked) {
			out = append(out, fieldDiffs(id, r[i], g[j])...)
		}
	}
	return out
}

// endIDs are the identities of either end state, sorted.
func endIDs(ref, got map[string][]endObject) []string {
	ids := slices.Collect(maps.Keys(ref))
	for id := range got {
		if _, ok := ref[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// sameSiblings are the identities among ids of generated siblings, the
// objects of one kind under one owner whose names were generated
// (ReplicaSet/heir > Pod/web-*, ReplicaSet/heir > Pod/heir-*), whose
// contents are the same in ref and got taken together, whatever their
// names, but for the fields masked (nil: none). A generated name's prefix
// says which owner made the object, not what it is: a ReplicaSet that
// adopts the pods of another deleted with propagationPolicy Orphan, then
// scales down to its replicas, keeps some of its own and some adopted,
// chosen among equally ranked pods at random, and either end is the same
// state. Siblings whose contents differ, or that number differently, are
// compared by identity as every object is. The fields in which the paired
// siblings of the groups found the same differ (all masked) come back too.
func sameSiblings(ids []string, ref, got map[string][]endObject, masked func(fieldDiff) bool) (map[string]bool, []fieldDiff) {
	var diffs []fieldDiff
	groups := map[string][]string{}
	for _, id := range ids {
		owner, last, ok := cutLast(id, " > ")
		if !ok || !strings.HasSuffix(last, "*") {
			continue
		}
		kind, _, _ := strings.Cut(last, "/")
		g := owner + " > " + kind
		groups[g] = append(groups[g], id)
	}
	same := map[string]bool{}
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		var r, g []endObject
		for _, id := range members {
			r, g = append(r, ref[id]...), append(g, got[id]...)
		}
		if len(r) != len(g) {
			continue
		}
		alike := true
		var ds []fieldDiff
		for i, j := range pairing(r, g, masked) {
			for _, d := range fieldDiffs(siblingGroup(members[0]), r[i], g[j]) {
				alike = alike && masked != nil && masked(d)
				ds = append(ds, d)
			}
		}
		if alike {
			for _, id := range members {
				same[id] = true
			}
			diffs = append(diffs, ds...)
		}
	}
	return same, diffs
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// pairing matches each of r (objects of one identity: a ReplicaSet's
// pods, say) with one of g, of as many: in order, each to the one left
// that differs from it in the fewest fields not masked (nil: none), then
// in the fewest fields. Pairing by position would let a field that varies
// anyway (a generated volume name) decide the order, and report a pod on
// node 0 and one on node 1 as two pods that changed nodes. pairing[i] is
// r[i]'s match in g.
func pairing(r, g []endObject, masked func(fieldDiff) bool) []int {
	out := make([]int, len(r))
	taken := make([]bool, len(g))
	for i := range r {
		best, fewest, fewestAll := -1, 0, 0
		for j := range g {
			if taken[j] {
				continue
			}
			ds := fieldDiffs("", r[i], g[j])
			n := len(ds)
			if masked != nil {
				n = 0
				for _, d := range ds {
					if !masked(d) {
						n++
					}
				}
			}
			if best < 0 || n < fewest || (n == fewest && len(ds) < fewestAll) {
				best, fewest, fewestAll = j, n, len(ds)
			}
		}
		out[i], taken[best] = best, true
	}
	return out
}

// fieldDiffs lists the fields in which got differs from ref, object id.
func fieldDiffs(id string, ref, got endObject) []fieldDiff {
	var out []fieldDiff
	paths := map[string]bool{}
	for p := range ref.flat {
		paths[p] = true
	}
	for p := range got.flat {
		paths[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		rv, rok := ref.flat[p]
		gv, gok := got.flat[p]
		if rv == gv && rok == gok {
			continue
		}
		if !rok {
			rv = absent
		}
		if !gok {
			gv = absent
		}
		out = append(out, fieldDiff{object: id, kind: ref.kind, path: p, ref: rv, got: gv})
	}
	return out
}

// ignored is whether the subject's ignore path p masks path: the path
// itself or anything below it, list indices aside; a condition's type
// (conditions[Active]) aside too unless p names one.
func ignored(p, path string) bool {
	under := func(path string) bool { return path == p || strings.HasPrefix(path, p+".") }
	path = indexPattern.ReplaceAllString(path, "")
	return under(path) || under(selectorPattern.ReplaceAllString(path, ""))
}

// selectorPattern is a condition's type in a compared path.
var selectorPattern = regexp.MustCompile(`\[[^\]]*\]`)

// resolves is whether the dotted path p names a field of obj (a
// condition by its type: conditions[Active]), through
// lists (any item).
func resolves(obj any, p []string) bool {
	if len(p) == 0 {
		return true
	}
	switch x := obj.(type) {
	case map[string]any:
		if v, ok := x[p[0]]; ok && resolves(v, p[1:]) {
			return true
		}
		// A condition by its type: conditions[Active].
		if name, typ, ok := strings.Cut(strings.TrimSuffix(p[0], "]"), "["); ok && strings.HasSuffix(p[0], "]") {
			items, _ := x[name].([]any)
			for _, item := range items {
				if c, _ := item.(map[string]any); c != nil && c["type"] == typ && resolves(c, p[1:]) {
					return true
				}
			}
		}
		// Keys with dots (labels): the rest joined may be one key.
		for i := len(p); i > 1; i-- {
			if v, ok := x[strings.Join(p[:i], ".")]; ok && resolves(v, p[i:]) {
				return true
			}
		}
	case []any:
		for _, item := range x {
			if resolves(item, p) {
				return true
			}
		}
	}
	return false
}

// fieldPath splits an ignore path at its dots, but for those of a
// condition's type (status.conditions[example.com/Synced].status).
func fieldPath(p string) []string {
	var out []string
	start, depth := 0, 0
	for i, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == '.' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// references are the settled fault-free reference runs of the evidence:
// none recorded is not evaluated, and so is a reference none of which
// settled (the subject or its set-up is broken, nothing was compared).
func references(e *evidence.Evidence) ([]*EndState, error) {
	if !FactSteadyReferences.Has(e) {
		return nil, fmt.Errorf("%w: fact %q: %w: no fault-free reference run was kept for this run (the suite's fault-free specs did not run before it, or kept no end state)", oracle.ErrNotEvaluated, FactSteadyReferences, evidence.ErrMissing)
	}
	r := read(e)
	refs := get(r, FactSteadyReferences)
	if err := r.missing(); err != nil {
		return nil, err
	}
	var settled []*EndState
	var not []string
	for _, ref := range refs {
		if ref.NotReady == "" {
			settled = append(settled, ref)
		} else {
			not = append(not, fmt.Sprintf("%q: %s", ref.Spec, ref.NotReady))
		}
	}
	switch {
	case len(refs) == 0:
		return nil, fmt.Errorf("%w: fact %q names no fault-free reference run", oracle.ErrNotEvaluated, FactSteadyReferences)
	case len(settled) == 0:
		return nil, fmt.Errorf("%w: the fault-free reference run never settled, so there is no end state to compare with (the subject or its set-up is broken): %s", oracle.ErrNotEvaluated, strings.Join(not, "; "))
	}
	return settled, nil
}

// variation is how a field differed between clean reference runs: in
// value (present in both), or in presence (absent from one).
type variation struct{ value, presence bool }

// learnt is what the settled clean reference runs teach of what differs
// between runs of the same objects with no fault: the fields (by object
// and path, fieldDiff.mask) whose value or presence differed, the fewest
// and the most objects of each identity, and the groups (an owner's
// identity and a kind) whose names differed (names derived from a uid,
// say: identities' vary). A faulted run is held to them: a field that
// varied in value masks another value, not its absence; a count is
// masked within the range the clean runs showed; a name that varied is
// compared as a generated one.
type learnt struct {
	c      comparison
	fields map[string]variation
	counts map[string][2]int
}

// learned is what refs teach (learnt), compared with one another as c
// compares (the vary groups it finds are set in the comparison it
// returns).
func learned(refs []*EndState) learnt {
	l := learnt{c: comparisonOf(refs...), fields: map[string]variation{}, counts: map[string][2]int{}}
	l.c.vary = map[string]bool{}
	if len(refs) < 2 {
		return l
	}
	// Names that differ: an identity of one run with none like it in the
	// other, beside one of the same owner and kind in the other only. A
	// group masked may rename what it owns: look again until nothing
	// more is found.
	for range 4 {
		first := refs[0].comparedAs(l.c)
		found := false
		for _, ref := range refs[1:] {
			other := ref.comparedAs(l.c)
			only := func(a, b map[string][]endObject) map[string]bool {
				out := map[string]bool{}
				for id := range a {
					if _, ok := b[id]; !ok {
						out[nameGroup(id)] = true
					}
				}
				return out
			}
			inOther := only(other, first)
			for g := range only(first, other) {
				if inOther[g] && !l.c.vary[g] {
					l.c.vary[g], found = true, true
				}
			}
		}
		if !found {
			break
		}
	}
	all := func(fieldDiff) bool { return true }
	first := refs[0].comparedAs(l.c)
	for _, ref := range refs {
		for id, objs := range ref.comparedAs(l.c) {
			r, ok := l.counts[id]
			if !ok {
				r = [2]int{len(objs), len(objs)}
			}
			l.counts[id] = [2]int{min(r[0], len(objs)), max(r[1], len(objs))}
		}
	}
	for _, ref := range refs[1:] {
		other := ref.comparedAs(l.c)
		for id := range first {
			if _, ok := other[id]; !ok {
				l.counts[id] = [2]int{0, l.counts[id][1]}
			}
		}
		for id := range other {
			if _, ok := first[id]; !ok {
				l.counts[id] = [2]int{0, l.counts[id][1]}
			}
		}
		// Generated siblings that number the same are one state here as
		// in the comparison: what varies between them is learned field by
		// field, not their counts by prefix (which would then mask any
		// count of them).
		_, siblings := sameSiblings(endIDs(first, other), first, other, all)
		for _, d := range append(siblings, diffEnds(first, other, all)...) {
			if d.path == countPath {
				continue
			}
			v := l.fields[d.mask()]
			if d.ref == absent || d.got == absent {
				v.presence = true
			} else {
				v.value = true
			}
			l.fields[d.mask()] = v
		}
	}
	return l
}

// variedIdentity is id (Identities) as identities with vary names it:
// the name of each object of a group in vary masked whole, level by
// level from the top owner down.
func variedIdentity(id string, vary map[string]bool) string {
	if len(vary) == 0 {
		return id
	}
	parent := ""
	for seg := range strings.SplitSeq(id, " > ") {
		kind, name, _ := strings.Cut(seg, "/")
		if vary[parent+kind] {
			name = "*"
		}
		parent += kind + "/" + name + " > "
	}
	return strings.TrimSuffix(parent, " > ")
}

// nameGroup is the group of an identity whose name may vary: its owner's
// identity, " > " and its kind; its kind alone with no owner.
func nameGroup(id string) string {
	owner, last, ok := cutLast(id, " > ")
	if !ok {
		owner, last = "", id
	}
	kind, _, _ := strings.Cut(last, "/")
	if owner == "" {
		return kind
	}
	return owner + " > " + kind
}

// masks says whether the clean runs taught that d varies: a field whose
// value varied, when both runs have it; one whose presence varied,
// always; a count within the range they showed.
func (l learnt) masks(d fieldDiff) bool {
	if d.path == countPath {
		r, ok := l.counts[d.object]
		n, err := strconv.Atoi(d.got)
		return ok && err == nil && r[0] != r[1] && r[0] <= n && n <= r[1]
	}
	v := l.fields[d.mask()]
	return v.presence || (v.value && d.ref != absent && d.got != absent)
}

// describe lists what l masks, for a reader of the verdict: each field
// by object and path (value or presence), each count range and each
// group whose names vary, at most limit of them.
func (l learnt) describe(limit int) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l.fields)) {
		obj, path, _ := strings.Cut(k, "\x00")
		v := l.fields[k]
		how := "value"
		if v.presence {
			how = "presence"
		}
		out = append(out, fmt.Sprintf("%s %s (%s)", obj, path, how))
	}
	for _, id := range slices.Sorted(maps.Keys(l.counts)) {
		if r := l.counts[id]; r[0] != r[1] {
			out = append(out, fmt.Sprintf("%s: %d to %d objects", id, r[0], r[1]))
		}
	}
	for _, g := range slices.Sorted(maps.Keys(l.c.vary)) {
		out = append(out, g+" names (compared as generated)")
	}
	if len(out) == 0 {
		return "none"
	}
	if len(out) > limit {
		out = append(out[:limit], fmt.Sprintf("and %d more", len(out)-limit))
	}
	return strings.Join(out, "; ")
}

// endAndReferences is the faulted run's end state and the reference
// runs' the evidence carries.
func endAndReferences(e *evidence.Evidence) (*EndState, []*EndState, error) {
	got, err := EndStateOf(e)
	if err != nil {
		return nil, nil, err
	}
	refs, err := references(e)
	return got, refs, err
}

// ignoreEntry is one of the subject's ignore paths: a dotted path, on
// every kind, or Kind:path, on that kind only.
type ignoreEntry struct{ kind, path string }

func parseIgnore(v string) ignoreEntry {
	if kind, path, ok := strings.Cut(v, ":"); ok && kind != "" && !strings.ContainsAny(kind, ".[") {
		return ignoreEntry{kind, path}
	}
	return ignoreEntry{path: v}
}

func (i ignoreEntry) masks(d fieldDiff) bool {
	return d.path != countPath && (i.kind == "" || i.kind == d.kind) && ignored(i.path, d.path)
}

// comparedEnds is a faulted run's end state and its references, as
// same-end-state compares them: the differences masked by what the clean
// runs taught, and by each ignore entry, and those left.
type comparedEnds struct {
	got  *EndState
	refs []*EndState
	l    learnt
	// ignored counts, by ignore entry, the differences it masked.
	ignored map[string][]string
	left    []fieldDiff
	// kinds are the kinds of the objects compared.
	kinds []string
	// c is how they were compared.
	c comparison
}

// compareEnds compares the faulted run's end state with the first
// settled reference's; an ignore path that names no field of any object
// compared is bad input: not evaluated, naming it.
func compareEnds(e *evidence.Evidence) (*comparedEnds, error) {
	got, refs, err := endAndReferences(e)
	if err != nil {
		return nil, err
	}
	var ignore []string
	if FactSteadyIgnore.Has(e) {
		r := read(e)
		ignore = get(r, FactSteadyIgnore)
		if err := r.missing(); err != nil {
			return nil, err
		}
	}
	var unresolved []string
	for i, v := range ignore {
		entry := parseIgnore(v)
		found := false
		for _, es := range append([]*EndState{got}, refs...) {
			for _, o := range es.Objects {
				kind, _ := o["kind"].(string)
				found = found || ((entry.kind == "" || entry.kind == kind) && resolves(o, fieldPath(entry.path)))
			}
		}
		if !found {
			unresolved = append(unresolved, fmt.Sprintf("capabilities.reconciledObjects.ignore[%d] %q", i, v))
		}
	}
	if len(unresolved) > 0 {
		return nil, fmt.Errorf("%w: %s names no field of any object of the end states compared; expected a dotted path of a field the objects or what they own have, such as status.lastSyncTime, or Kind:path", oracle.ErrNotEvaluated, strings.Join(unresolved, ", "))
	}
	l := learned(refs)
	c := l.c
	c = c.with(got)
	ce := &comparedEnds{got: got, refs: refs, l: l, ignored: map[string][]string{}, c: c}
	masked := func(d fieldDiff) bool {
		return l.masks(d) || slices.ContainsFunc(ignore, func(v string) bool { return parseIgnore(v).masks(d) })
	}
	ref, end := refs[0].comparedAs(c), got.comparedAs(c)
	kinds := map[string]bool{}
	for _, objs := range ref {
		kinds[objs[0].kind] = true
	}
	for _, objs := range end {
		kinds[objs[0].kind] = true
	}
	ce.kinds = slices.Sorted(maps.Keys(kinds))
	for _, d := range diffEnds(ref, end, masked) {
		switch {
		case l.masks(d):
		case slices.ContainsFunc(ignore, func(v string) bool { return parseIgnore(v).masks(d) }):
			for _, v := range ignore {
				if parseIgnore(v).masks(d) {
					ce.ignored[v] = append(ce.ignored[v], d.object+" "+d.path)
					break
				}
			}
		default:
			ce.left = append(ce.left, d)
		}
	}
	return ce, nil
}

// sameEndState judges the faulted run's end state against the first
// settled reference's, masked: what varies in every run (uids,
// timestamps, generated names, the namespace), what differed between
// clean reference runs (learnt) and the subject's ignore paths.
func sameEndState(e *evidence.Evidence) error {
	ce, err := compareEnds(e)
	if err != nil {
		return err
	}
	var diffs []string
	for _, d := range ce.left {
		diffs = append(diffs, d.String())
	}
	if len(diffs) == 0 {
		return nil
	}
	n := len(diffs)
	if n > 10 {
		diffs = append(diffs[:10], fmt.Sprintf("and %d more", n-10))
	}
	also := ""
	if ce.got.NotReady != "" {
		also = fmt.Sprintf(" (it had not settled: %s)", ce.got.NotReady)
	}
	return oracle.BrokeAt(ce.got.At, fmt.Errorf("the end state after the faults%s differs from the fault-free reference run's (%q) in %d fields: %s", also, ce.refs[0].Spec, n, strings.Join(diffs, "; ")))
}

// SameEndStateUnbound says why same-end-state is not bound, "" when it
// is owed: a run whose end state was taken before it had made every
// change its binding has (a recovery that did not settle stopped it:
// recovers is the finding) ends in a state the reference runs, which
// made them all, cannot be compared with. Never a pass and never a
// finding.
func SameEndStateUnbound(e *evidence.Evidence) string {
	m, ok := FactSteadyEnd.Lookup(e)
	if !ok || m.Made >= m.Changes {
		return ""
	}
	return fmt.Sprintf("the end state was taken after %d of the binding's %d changes: the state did not settle after the faults, so the changes left were not made (recovers judges that), and the reference runs made them all", m.Made, m.Changes)
}

// sameEndStateBound says what the end state was compared against: the
// record's "bound" figure, naming what was compared, what the clean runs
// taught to mask and what the subject's ignore paths masked.
func sameEndStateBound(e *evidence.Evidence) string {
	refs, err := references(e)
	if err != nil {
		return ""
	}
	const always = "uids (each as the object it names, or none), timestamps, generated names' suffixes (and prefixes, between objects of one kind and owner that hold the same), the namespace, a pod's node (and an endpoint's), a node's address and a pod's address (as that pod) masked"
	ce, err := compareEnds(e)
	compared := ""
	if err == nil {
		fields := "status"
		if ce.c.rootFields {
			fields = "status, the fields beside it that were set (applied, changed or written by a controller; not those the API server allocated or defaulted)"
		}
		compared = fmt.Sprintf("compared: the applied objects' "+fields+", labels, annotations, finalizers and ownerReferences, and the content, labels, annotations, finalizers and ownerReferences of what they own and of what the controller created or changed (%d objects written without an owner), of kinds %s; ", len(ce.got.Written), strings.Join(ce.kinds, ", "))
	}
	ignore := ""
	if err == nil && len(ce.ignored) > 0 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(ce.ignored)) {
			parts = append(parts, fmt.Sprintf("%q masked %s", v, strings.Join(ce.ignored[v], ", ")))
		}
		ignore = "; the subject's ignore paths: " + strings.Join(parts, "; ")
	} else if v, _ := FactSteadyIgnore.Lookup(e); len(v) > 0 {
		ignore = "; the subject's ignore paths (" + FactSteadyIgnore.Text(v) + ") masked nothing that differed"
	}
	if len(refs) == 1 {
		return fmt.Sprintf("%sone clean reference run (%q): only what varies in every run masked (%s)%s; no second clean run to learn what varies", compared, refs[0].Spec, always, ignore)
	}
	return fmt.Sprintf("%s%d clean reference runs: %s; learned from them: %s%s", compared, len(refs), always, learned(refs).describe(20), ignore)
}

// noChurnBound is what the faulted run's creates were held to: the
// record's "bound" figure.
func noChurnBound(e *evidence.Evidence) string {
	refs, err := references(e)
	if err != nil {
		return ""
	}
	allowed := map[string]int{}
	for _, ref := range refs {
		for res, n := range ref.Creates {
			allowed[res] = max(allowed[res], n)
		}
	}
	var parts []string
	for _, res := range slices.Sorted(maps.Keys(allowed)) {
		parts = append(parts, fmt.Sprintf("%s %d", res, allowed[res]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	owedText := ""
	if owed, err := ownedDeletions(e); err == nil && len(owed) > 0 {
		var o []string
		for _, res := range slices.Sorted(maps.Keys(owed)) {
			o = append(o, fmt.Sprintf("%s %d", res, owed[res]))
		}
		owedText = fmt.Sprintf(", and one more of each object of its own the harness deleted (%s)", strings.Join(o, ", "))
	}
	return fmt.Sprintf("creates at most the %d clean reference runs' (%s)%s; no delete of what they keep", len(refs), strings.Join(parts, ", "), owedText)
}

// scheduledJobs counts, by resource, the CronJobs' Jobs (scheduledName)
// of different names that the run's histories saw added in its namespace
// between the objects' application and the end state.
func scheduledJobs(e *evidence.Evidence, got *EndState) map[string]int {
	names := map[string]map[string]bool{}
	for h, recs := range e.Histories {
		res, ok := strings.CutPrefix(h, SteadyHistory(""))
		if !ok {
			continue
		}
		for _, rec := range recs {
			if rec.Type != "ADDED" || rec.Object == nil || rec.At.Before(got.Applied) || rec.At.After(got.At) {
				continue
			}
			o := &unstructured.Unstructured{Object: rec.Object}
			if _, ok := scheduledName(o); !ok || o.GetNamespace() != got.Namespace {
				continue
			}
			if names[res] == nil {
				names[res] = map[string]bool{}
			}
			names[res][o.GetName()] = true
		}
	}
	out := map[string]int{}
	for res, n := range names {
		out[res] = len(n)
	}
	return out
}

// noChurn judges the faulted run's writes against the reference runs':
// from the first fault on, no delete of an object the references keep
// beyond what they deleted of it themselves, and over the run no more
// creates of a resource than the reference that made most.
func noChurn(e *evidence.Evidence) error {
	got, refs, err := endAndReferences(e)
	if err != nil {
		return err
	}
	if len(e.Faults) == 0 {
		return fmt.Errorf("%w: no fault was injected: there is no during or after a fault", oracle.ErrNotEvaluated)
	}
	r := read(e)
	histories := get(r, FactSteadyHistories)
	src := r.steadySource()
	if err := r.missing(); err != nil {
		return err
	}
	from := e.Faults[0].Start
	type breach struct {
		at   time.Time
		what string
	}
	var broken []breach
	allowed := map[string]int{}
	for _, ref := range refs {
		for res, n := range ref.Creates {
			allowed[res] = max(allowed[res], n)
		}
	}
	// What the harness deleted of the controller's own while a fault
	// acted (and the reference runs did not) it owes again.
	owed, err := ownedDeletions(e)
	if err != nil {
		return err
	}
	for res, n := range owed {
		allowed[res] += n
	}
	// A CronJob's Jobs are made by the clock, one for each minute its
	// schedule names: a run whose steps came later than the reference
	// runs' (a change applied a minute after theirs) owes a Job for
	// each further minute. Churn is a minute's Job made again.
	for res, n := range scheduledJobs(e, got) {
		allowed[res] = max(allowed[res], n)
	}
	made := map[string]int{}
	scope := runScope{ns: got.Namespace, named: read(e).clusterScoped()}
	for _, c := range controllerWrites(e, got.Applied, got.At) {
		if !c.created || !scope.has(c.resource, c.namespace, c.name) || !slices.Contains(histories, historyOf(c.resource, c.namespace, got.Namespace)) {
			continue
		}
		// It broke at the first create beyond the reference's count.
		if made[c.resource]++; made[c.resource] == allowed[c.resource]+1 {
			what := fmt.Sprintf("it created %d %s, the reference run %d", got.Creates[c.resource], c.resource, allowed[c.resource]-owed[c.resource])
			if owed[c.resource] > 0 {
				what += fmt.Sprintf(" (and %d more owed for what the harness deleted of its own)", owed[c.resource])
			}
			broken = append(broken, breach{c.at, what})
		}
	}
	// What every reference keeps, and how many of each it deleted itself.
	l := learned(refs)
	kept := map[string]int{}
	for _, ref := range refs {
		for id := range ref.comparedAs(l.c) {
			kept[id]++
		}
	}
	dels, unknown := controllerDeletes(e, src, histories, scope, from, got.At, l.c.vary)
	// Deletes count by the identity compared, names learned to vary
	// masked: a child named from its owner's uid, deleted and made again
	// in every clean run, has a name of its own in each.
	refDeletes := make([]map[string]int, len(refs))
	for i, ref := range refs {
		refDeletes[i] = map[string]int{}
		for id, n := range ref.Deletes {
			refDeletes[i][variedIdentity(id, l.c.vary)] += n
		}
	}
	count := map[string]int{}
	for _, d := range dels {
		count[d.compared]++
		allowedDel := 0
		for _, rd := range refDeletes {
			allowedDel = max(allowedDel, rd[d.compared])
		}
		if kept[d.compared] == len(refs) && count[d.compared] > allowedDel {
			broken = append(broken, breach{d.at, fmt.Sprintf("it deleted %s (%s at %s), which the reference run keeps (deleting %d of it)", d.identity, d.key, d.at.Format("15:04:05.000"), allowedDel)})
		}
	}
	if len(broken) > 0 {
		slices.SortStableFunc(broken, func(a, b breach) int { return a.at.Compare(b.at) })
		var what []string
		for _, b := range broken {
			what = append(what, b.what)
		}
		return oracle.BrokeAt(broken[0].at, fmt.Errorf("against the fault-free reference run (%q): %s", refs[0].Spec, strings.Join(what, "; ")))
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w: the controller deleted objects no history recorded: %s", oracle.ErrNotEvaluated, strings.Join(unknown, ", "))
	}
	return nil
}
