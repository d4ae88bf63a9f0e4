package judge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/steadystate-dev/steadystate/chaos/proxy"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// What a steady-state run covers is read from the controller's own
// writes in its proxy log, not assumed from ownerReferences: every object
// it created (a create, or a server-side apply answered 201) or changed,
// in the run's namespace, cluster-scoped or, for what it leaves behind,
// in any namespace; every object it deleted, one by one or by a delete of
// a collection.

// write is one write of the controller the API server carried out (2xx),
// Lease and Event writes aside (IsControllerWrite).
type write struct {
	verb                      string
	resource, namespace, name string // resource: plural, with its group but for the core group
	// uid is the uid of the object the answer carried ("" when the
	// proxy did not read it: a delete, or evidence recorded before it
	// did).
	uid string
	// created says the write made the object: a create answered 201, or
	// a patch (a server-side apply) answered 201.
	created bool
	// selector is a delete of a collection's label selector.
	selector string
	at, end  time.Time
}

func (w write) String() string {
	what := w.verb
	if w.created && w.verb == "patch" {
		what = "create (apply)"
	}
	return fmt.Sprintf("%s %s %s at %s", what, w.resource, strings.TrimPrefix(w.namespace+"/"+w.name, "/"), w.at.Format("15:04:05.000"))
}

// controllerWrites are the controller's answered writes of objects (no
// subresource) begun within [from, to], in order.
func controllerWrites(e *evidence.Evidence, from, to time.Time) []write {
	var out []write
	for _, p := range proxyLogs(e) {
		for _, req := range p.Requests {
			if req.Code < 200 || req.Code > 299 || req.Subresource != "" || req.Start.Before(from) || req.Start.After(to) || !IsControllerWrite(req.RequestInfo) {
				continue
			}
			w := write{verb: req.Verb, resource: req.GroupResource(), namespace: req.Namespace, name: req.ObjectName(), created: req.Created(), at: req.Start, end: req.End}
			if req.Object != nil {
				w.uid = req.Object.UID
			}
			if req.Verb == "deletecollection" {
				w.selector = req.LabelSelector
			}
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b write) int { return a.at.Compare(b.at) })
	return out
}

// cutWrites are the controller's writes of a named object (an update, a
// patch: a server-side apply among them; a create whose body named its
// object) begun within [from, to] whose answer it never got: a restart
// or a reset cut them off. The API server may have carried them out,
// made the object even: whether it did, the recorded state says.
func cutWrites(e *evidence.Evidence, from, to time.Time) []write {
	var out []write
	for _, p := range proxyLogs(e) {
		for _, req := range p.Requests {
			named := req.ObjectName()
			if req.Code != 0 || named == "" || req.Subresource != "" || (req.Verb != "update" && req.Verb != "patch" && req.Verb != "create") ||
				req.Start.Before(from) || req.Start.After(to) || !IsControllerWrite(req.RequestInfo) {
				continue
			}
			out = append(out, write{verb: req.Verb, resource: req.GroupResource(), namespace: req.Namespace, name: named, at: req.Start, end: req.End})
		}
	}
	return out
}

// runScope tells a run's objects from others: those of its namespace;
// those of another namespace whose name carries the run's namespace (a
// record the controller keeps for the run in the namespace default: runs
// share the cluster, and only its name tells whose it is); and the
// cluster-scoped ones of the run (RunWrite: of the resources of its
// applied cluster-scoped objects, named, only those whose name carries
// the namespace).
type runScope struct {
	ns    string
	named []string
}

func (sc runScope) has(resource, namespace, name string) bool {
	carries := name != "" && maskNamespace(name, sc.ns) != name
	switch {
	case namespace == sc.ns:
		return true
	case namespace != "":
		return carries
	}
	return !slices.Contains(sc.named, resource) || carries
}

// historyOf is the history that records resource in namespace for a run
// of namespace runNS: SteadyHistory(resource) for the run's namespace and
// for a cluster-scoped resource, SteadyHistoryIn(resource, namespace) for
// another namespace.
func historyOf(resource, namespace, runNS string) string {
	if namespace == "" || namespace == runNS {
		return SteadyHistory(resource)
	}
	return SteadyHistoryIn(resource, namespace)
}

// SteadyHistoryIn is the name of the history recording resource in
// another namespace than the run's: one the controller created objects
// in (a ConfigMap in the namespace default, say).
func SteadyHistoryIn(resource, namespace string) string {
	return SteadyHistory(resource) + "@" + namespace
}

// createdKeys matches each create of creates to the key of the object it
// made in s, a state of the histories names: by the uid the answer
// carried, else (evidence from before the proxy read answers) by its
// resource, namespace and name, else the earliest object of its resource
// in its namespace first seen after it began (firstSeen, by uid; nil:
// none) and not matched yet. An object a create made that s no longer
// holds gives no key.
func createdKeys(creates []write, s oracle.State, histories []string, runNS string, firstSeen map[string]time.Time) map[string]write {
	byUID := map[string]string{}
	for k, o := range s {
		byUID[string(o.GetUID())] = k
	}
	out := map[string]write{}
	taken := map[string]bool{}
	for _, c := range creates {
		h := historyOf(c.resource, c.namespace, runNS)
		if !slices.Contains(histories, h) {
			continue
		}
		k := ""
		switch {
		case c.uid != "":
			k = byUID[c.uid]
		case c.name != "":
			k = SteadyKey(h, c.namespace, c.name)
			if s[k] == nil {
				k = ""
			}
		default:
			var best time.Time
			for key, o := range s {
				at, ok := firstSeen[string(o.GetUID())]
				if !ok || taken[key] || at.Before(c.at) || !strings.HasPrefix(key, h+":"+c.namespace+"/") {
					continue
				}
				if k == "" || at.Before(best) || (at.Equal(best) && key < k) {
					k, best = key, at
				}
			}
		}
		if k != "" && !taken[k] {
			taken[k] = true
			out[k] = c
		}
	}
	return out
}

// deletedBy are the keys of the objects a delete of a collection took:
// the objects of its resource in its namespace, matching its label
// selector, that src held when it began and that went (or began to go)
// by the end of the request, or within the moment the watch takes to say
// so after it.
func deletedBy(w write, src oracle.Source, runNS string) []string {
	sel, err := labels.Parse(w.selector)
	if err != nil {
		return nil
	}
	h := historyOf(w.resource, w.namespace, runNS)
	prefix := h + ":" + w.namespace + "/"
	before := src.StateAt(w.at)
	after := src.StateAt(w.end.Add(deleteEventLag))
	var out []string
	for k, o := range before {
		if !strings.HasPrefix(k, prefix) || o.GetDeletionTimestamp() != nil || !sel.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		if now := after[k]; now == nil || string(now.GetUID()) != string(o.GetUID()) || now.GetDeletionTimestamp() != nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// deleteEventLag is how long after a delete's answer its watch event is
// still taken as the delete's: the API server sends it at once, and the
// recorder stamps it when it arrives.
const deleteEventLag = time.Second

// unstored are the resources a run found the API server does not store (a
// SelfSubjectAccessReview, a TokenReview: created, answered, never kept),
// from the fact FactSteadyUnstored; none when the run recorded none.
func unstored(e *evidence.Evidence) []string {
	v, _ := FactSteadyUnstored.Lookup(e)
	return v
}

// FactSteadyUnstored lists the resources the controller created objects
// of that the API server does not store, comma-separated: its discovery
// offers no get, list or watch of them (an access review, a token
// review). Such a create leaves nothing behind.
var FactSteadyUnstored = Fact[Names]{Name: "reconcile/unstored"}

// WatchSelects reports whether a watch's selectors select o: its label
// selector matches o's labels, and its field selector, if any, names
// only metadata.name and metadata.namespace and matches o's (a selector
// on another field cannot be told from the object's identity, and is
// taken as not selecting it). What the controller does not watch it
// does not see change.
func WatchSelects(info proxy.RequestInfo, o *unstructured.Unstructured) bool {
	ls, err := labels.Parse(info.LabelSelector)
	if err != nil || !ls.Matches(labels.Set(o.GetLabels())) {
		return false
	}
	if info.FieldSelector == "" {
		return true
	}
	fs, err := fields.ParseSelector(info.FieldSelector)
	if err != nil {
		return false
	}
	for _, req := range fs.Requirements() {
		if req.Field != "metadata.name" && req.Field != "metadata.namespace" {
			return false
		}
	}
	return fs.Matches(fields.Set{"metadata.name": o.GetName(), "metadata.namespace": o.GetNamespace()})
}
