package proxy

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

var configMaps = Match{Resource: "configmaps"}

func (e *env) addRule(t *testing.T, r Rule) string {
	t.Helper()
	id, err := e.proxy.AddRule(r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) removeRule(t *testing.T, id string) {
	t.Helper()
	if err := e.proxy.RemoveRule(id); err != nil {
		t.Fatal(err)
	}
}

func TestCutWatchesResumesWithoutRelist(t *testing.T) {
	e := newEnv(t, cluster(t))
	inf := e.startInformer(t, e.victimConfig(true))
	// client-go relists after a watch that ends within a second without
	// events ("very short watch"); one event makes the cut an ordinary one.
	e.createCM(t, "before-cut", nil)
	eventually(t, 10*time.Second, "an event before the cut", func() bool { return inf.Saw("ADD before-cut") })
	before := e.proxy.LastRequestID()
	if n, _ := e.proxy.CutWatches(configMaps); n != 1 {
		t.Fatalf("cut %d watches, want the informer's one", n)
	}
	eventually(t, 10*time.Second, "the informer to watch again", func() bool {
		return len(e.requestsSince(before, Match{Verbs: []string{"watch"}, Resource: "configmaps"})) > 0
	})
	rewatch := e.requestsSince(before, Match{Verbs: []string{"watch"}, Resource: "configmaps"})[0]
	if rewatch.SendInitialEvents || !rewatch.Resumable() {
		t.Errorf("after a cut the informer should resume from its resource version, got %+v", rewatch.RequestInfo)
	}
	if lists := e.requestsSince(before, Match{Verbs: []string{"list"}, Resource: "configmaps"}); len(lists) > 0 {
		t.Errorf("a cut with a valid resource version caused a relist: %+v", lists)
	}
	e.createCM(t, "after-cut", nil)
	eventually(t, 10*time.Second, "an event after the cut", func() bool { return inf.Saw("ADD after-cut") })
}

// TestExpireMakesTheInformerRelistAndLoseAnObject is the lost-events
// trigger (docs/design.md, the lost-events class): an object created and deleted while the watch is held
// is never seen, neither added nor deleted, because the re-watch gets 410
// and the relist no longer contains it.
func TestExpireMakesTheInformerRelistAndLoseAnObject(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "protobuf"}[protobuf], func(t *testing.T) {
			e := newEnv(t, cluster(t))
			inf := e.startInformer(t, e.victimConfig(protobuf))
			e.createCM(t, "steady", nil)
			eventually(t, 10*time.Second, "steady state", func() bool { return inf.Saw("ADD steady") })
			stall := e.addRule(t, Rule{Action: Stall, Match: configMaps})
			e.createCM(t, "ghost", nil)
			e.deleteCM(t, "ghost")
			e.createCM(t, "survivor", nil)
			eventually(t, 10*time.Second, "the proxy to hold 3 events", func() bool { return e.proxy.Held() >= 3 })

			expire := e.addRule(t, Rule{Action: Expire, Match: configMaps, Count: 1})
			before := e.proxy.LastRequestID()
			if _, err := e.proxy.CutWatches(configMaps); err != nil {
				t.Fatal(err)
			}
			e.removeRule(t, stall)
			eventually(t, 15*time.Second, "the informer to relist and see survivor", func() bool { return inf.Has(e.ns, "survivor") })

			if inf.Saw("ADD ghost") || inf.Saw("DELETE ghost") {
				t.Errorf("the informer saw ghost (%v); the relist should have hidden it", inf.Seen())
			}
			var got410 bool
			for _, ev := range e.proxy.Events() {
				if ev.Fault == expire {
					got410 = ev.Type == "ERROR" && ev.Code == 410 && ev.Reason == "Expired" && strings.HasPrefix(ev.Message, "too old resource version: ")
				}
			}
			if !got410 {
				t.Error("no synthetic ERROR 410 Expired event was recorded")
			}
			if !relisted(e.requestsSince(before, configMaps)) {
				t.Errorf("no relist after the 410; requests: %+v", e.requestsSince(before, configMaps))
			}
		})
	}
}

// relisted reports whether the requests contain a relist: a LIST, or a
// watch that asks for initial events (client-go's watch-list).
func relisted(reqs []Request) bool {
	for _, r := range reqs {
		if r.Verb == "list" || (r.Verb == "watch" && r.SendInitialEvents) {
			return true
		}
	}
	return false
}

func TestStallDeliversNothingUntilLifted(t *testing.T) {
	e := newEnv(t, cluster(t))
	inf := e.startInformer(t, e.victimConfig(false))
	stall := e.addRule(t, Rule{Action: Stall, Match: configMaps})
	e.createCM(t, "held", nil)
	eventually(t, 10*time.Second, "the proxy to hold the event", func() bool { return e.proxy.Held() >= 1 })
	if inf.Saw("ADD held") {
		t.Fatal("the informer saw an event during a stall")
	}
	if e.proxy.ActiveWatches(configMaps) != 1 {
		t.Error("the stalled watch should stay open")
	}
	e.removeRule(t, stall)
	eventually(t, 10*time.Second, "the held event after the stall", func() bool { return inf.Saw("ADD held") })
	// The log says the stall held it: a premise that a stall acted reads
	// this.
	var fault string
	for _, ev := range e.proxy.Events() {
		if ev.Type == "ADDED" && ev.Name == "held" && ev.Delivered {
			fault = ev.Fault
		}
	}
	if fault != stall {
		t.Errorf("the held event was recorded delivered as %q's, want the stall %q", fault, stall)
	}
}

func TestDropAndDelayMatchingEvents(t *testing.T) {
	e := newEnv(t, cluster(t))
	e.createCM(t, "a", map[string]string{"v": "1"})
	inf := e.startInformer(t, e.victimConfig(true))
	drop := e.addRule(t, Rule{Action: Drop, Match: configMaps, Event: EventMatch{Types: []string{"MODIFIED"}, Name: "a"}})
	delay := e.addRule(t, Rule{Action: Delay, Match: configMaps, Event: EventMatch{Types: []string{"ADDED"}, Name: "late"}, Delay: metav1.Duration{Duration: 300 * time.Millisecond}})

	cm, err := e.admin.CoreV1().ConfigMaps(e.ns).Get(t.Context(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = "2"
	if _, err := e.admin.CoreV1().ConfigMaps(e.ns).Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	e.createCM(t, "late", nil)
	eventually(t, 10*time.Second, "the delayed event", func() bool { return inf.Saw("ADD late") })
	if waited := time.Since(created); waited < 300*time.Millisecond {
		t.Errorf("the delayed ADDED arrived after %s, before the 300ms delay", waited)
	}
	// Events arrive in order, so a's update was handled before late's add.
	if inf.Saw("UPDATE a") {
		t.Error("the informer saw the dropped MODIFIED event of a")
	}
	var dropped, delayed bool
	for _, ev := range e.proxy.Events() {
		dropped = dropped || (ev.Fault == drop && !ev.Delivered && ev.Name == "a")
		delayed = delayed || (ev.Fault == delay && ev.Delivered && ev.Name == "late")
	}
	if !dropped || !delayed {
		t.Errorf("event log: dropped a=%v, delayed late=%v; want both", dropped, delayed)
	}
}

// TestDropLeavesAWatchListWhole: a watch-list's initial events are the
// list the informer replaces its store with; a drop of every ADDED event
// active when the informer lists leaves them whole (as it leaves a LIST
// answer), and drops the ADDED events of objects created after.
func TestDropLeavesAWatchListWhole(t *testing.T) {
	e := newEnv(t, cluster(t))
	e.createCM(t, "listed", nil)
	drop := e.addRule(t, Rule{Action: Drop, Match: configMaps, Event: EventMatch{Types: []string{"ADDED"}}})
	before := e.proxy.LastRequestID()
	inf := e.startInformer(t, e.victimConfig(true))
	eventually(t, 10*time.Second, "the listed object", func() bool { return inf.Has(e.ns, "listed") })
	if !slices.ContainsFunc(e.requestsSince(before, configMaps), func(r Request) bool { return r.Verb == "watch" && r.SendInitialEvents }) {
		t.Fatalf("the informer did not list by a watch-list, which this test is about: %+v", e.requestsSince(before, configMaps))
	}
	e.createCM(t, "later", nil)
	eventually(t, 10*time.Second, "the later ADDED to be dropped", func() bool {
		for _, ev := range e.proxy.Events() {
			if ev.Fault == drop && !ev.Delivered && ev.Name == "later" {
				return true
			}
		}
		return false
	})
	if inf.Has(e.ns, "later") {
		t.Error("the informer saw an ADDED event the drop should have dropped")
	}
}

func TestPartitionRefusesOrBlackholesEverything(t *testing.T) {
	e := newEnv(t, cluster(t))
	victim := kubernetes.NewForConfigOrDie(e.victimConfig(false))
	get := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		defer cancel()
		_, err := victim.CoreV1().Namespaces().Get(ctx, e.ns, metav1.GetOptions{})
		return err
	}
	inf := e.startInformer(t, e.victimConfig(false))
	refuse := e.addRule(t, Rule{Action: Partition})
	if err := get(5 * time.Second); err == nil {
		t.Error("a request succeeded during a refusing partition")
	}
	// A cut watch leaves the registry once its handler has ended the
	// stream, moments after the cut.
	eventually(t, 5*time.Second, "a refusing partition to cut the open watches", func() bool { return e.proxy.ActiveWatches(configMaps) == 0 })
	e.removeRule(t, refuse)
	if err := get(5 * time.Second); err != nil {
		t.Errorf("after the partition: %v", err)
	}

	hole := e.addRule(t, Rule{Action: Partition, Blackhole: true})
	if err := get(300 * time.Millisecond); !isTimeout(err) {
		t.Errorf("during a blackhole a request should hang until its deadline, got %v", err)
	}
	e.createCM(t, "during-blackhole", nil)
	e.removeRule(t, hole)
	if err := get(5 * time.Second); err != nil {
		t.Errorf("after the blackhole: %v", err)
	}
	eventually(t, 15*time.Second, "the informer to catch up after the partition", func() bool { return inf.Has(e.ns, "during-blackhole") })
	refused := 0
	for _, r := range e.proxy.Requests() {
		if r.Fault == refuse || r.Fault == hole {
			refused++
			if r.Code != 0 {
				t.Errorf("partitioned request %d got HTTP %d, want a reset connection", r.ID, r.Code)
			}
		}
	}
	if refused < 2 {
		t.Errorf("%d requests recorded as partitioned, want at least 2", refused)
	}
}

func isTimeout(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), "context deadline"))
}

func TestRespondWithErrors(t *testing.T) {
	e := newEnv(t, cluster(t))
	e.createCM(t, "x", nil)
	victim := kubernetes.NewForConfigOrDie(e.victimConfig(false))
	cms := victim.CoreV1().ConfigMaps(e.ns)

	e.addRule(t, Rule{Action: Respond, Code: 500, Count: 1, Match: Match{Verbs: []string{"get"}, Resource: "configmaps", Name: "x"}})
	if _, err := cms.Get(t.Context(), "x", metav1.GetOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("want an InternalError from the injected 500, got %v", err)
	}
	if _, err := cms.Get(t.Context(), "x", metav1.GetOptions{}); err != nil {
		t.Errorf("the 500 was for one request only, the next failed: %v", err)
	}

	e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Match: Match{Verbs: []string{"update"}, Resource: "configmaps"}})
	cm, _ := cms.Get(t.Context(), "x", metav1.GetOptions{})
	if _, err := cms.Update(t.Context(), cm, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("want a Conflict from the injected 409, got %v", err)
	}

	// Skip: the first two updates pass, the third alone is answered 409.
	third := e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Skip: 2, Match: Match{Verbs: []string{"update"}, Resource: "configmaps"}})
	for i := range 4 {
		cm, err := cms.Get(t.Context(), "x", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{})
		if refused := apierrors.IsConflict(err); refused != (i == 2) || (!refused && err != nil) {
			t.Errorf("update %d of 4 with skip 2: %v, want the third alone refused", i+1, err)
		}
	}
	if e.proxy.rules.has(third) {
		t.Error("the rule that skipped 2 and answered 1 is still active")
	}

	// client-go retries 429 by itself (Retry-After), so the victim succeeds.
	before := e.proxy.LastRequestID()
	tooMany := e.addRule(t, Rule{Action: Respond, Code: 429, Count: 2, Match: Match{Verbs: []string{"get"}, Resource: "configmaps", Name: "x"}})
	if _, err := cms.Get(t.Context(), "x", metav1.GetOptions{}); err != nil {
		t.Errorf("client-go should retry through two 429s, got %v", err)
	}
	var codes []int
	for _, r := range e.requestsSince(before, Match{Verbs: []string{"get"}, Resource: "configmaps", Name: "x"}) {
		codes = append(codes, r.Code)
		if r.Code == 429 && r.Fault != tooMany {
			t.Errorf("429 not attributed to the rule: %+v", r)
		}
	}
	if len(codes) != 3 || codes[0] != 429 || codes[1] != 429 || codes[2] != 200 {
		t.Errorf("codes seen by the proxy = %v, want [429 429 200]", codes)
	}
}

// TestConflictWritesTheObjectFirst: a 409 with Conflict is a real
// conflict: the object was written before the answer (its
// resourceVersion moved, a watch saw the two updates), it ends as it was
// (a Deployment's and an EndpointSlice's generation too), and the request's
// record says so; the same 409 without Conflict writes nothing; a create
// is answered with no write. Without the write, a client that waits for
// the change a Conflict announces would never see one.
func TestConflictWritesTheObjectFirst(t *testing.T) {
	e := newEnv(t, cluster(t))
	e.createCM(t, "x", map[string]string{"k": "v"})
	cms := kubernetes.NewForConfigOrDie(e.victimConfig(false)).CoreV1().ConfigMaps(e.ns)
	read, err := cms.Get(t.Context(), "x", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.admin.CoreV1().ConfigMaps(e.ns).Watch(t.Context(), metav1.ListOptions{ResourceVersion: read.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	before := e.proxy.LastRequestID()
	id := e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Verbs: []string{"update"}, Resource: "configmaps"}})
	if _, err := cms.Update(t.Context(), read, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	var seen []string
	for len(seen) < 2 {
		select {
		case ev := <-w.ResultChan():
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if ev.Type != watch.Modified || !ok {
				t.Fatalf("want the conflicting writes' updates, got %s %T", ev.Type, ev.Object)
			}
			seen = append(seen, cm.ResourceVersion)
		case <-time.After(10 * time.Second):
			t.Fatalf("the watch saw %d update(s) of the object after the 409, want 2", len(seen))
		}
	}
	now, err := e.admin.CoreV1().ConfigMaps(e.ns).Get(t.Context(), "x", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion == read.ResourceVersion || now.ResourceVersion != seen[1] {
		t.Errorf("resourceVersion read %s, now %s, the watch saw %v: want it moved by the two writes", read.ResourceVersion, now.ResourceVersion, seen)
	}
	if len(now.Labels) != 0 || len(now.Annotations) != 0 || now.Data["k"] != "v" {
		t.Errorf("the object after the conflict: labels %v, annotations %v, data %v; want it as it was", now.Labels, now.Annotations, now.Data)
	}
	for _, f := range now.ManagedFields {
		if f.Manager == ConflictManager {
			t.Errorf("the conflicting writes' manager is left in managedFields: %+v", f)
		}
	}
	reqs := e.requestsSince(before, Match{Verbs: []string{"update"}, Resource: "configmaps"})
	if len(reqs) != 1 || reqs[0].Fault != id || reqs[0].Conflict == nil || !slices.Equal(reqs[0].Conflict.ResourceVersions, seen) || reqs[0].Conflict.NotWritten != "" || reqs[0].ConflictMissed() {
		t.Errorf("the refused update's record: %+v, want the rule and the resourceVersions %v", reqs, seen)
	}
	if len(e.requestsSince(before, Match{Verbs: []string{"patch"}})) != 0 {
		t.Error("the conflicting writes are in the subject's log: they are no request of the subject's")
	}

	// A patch is refused the same way.
	patched := e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Resource: "configmaps", Verbs: []string{"patch"}}})
	_, err = cms.Patch(t.Context(), "x", types.MergePatchType, []byte(`{"data":{"k":"w"}}`), metav1.PatchOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	if reqs := e.requestsSince(before, Match{Verbs: []string{"patch"}}); len(reqs) != 1 || reqs[0].Fault != patched || reqs[0].Conflict == nil || len(reqs[0].Conflict.ResourceVersions) != 2 {
		t.Errorf("the refused patch's record: %+v", reqs)
	}

	// A create names no object that exists: answered without a write.
	e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Verbs: []string{"create"}, Resource: "configmaps"}})
	var refused apierrors.APIStatus
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "y"}}, metav1.CreateOptions{}); !errors.As(err, &refused) || refused.Status().Code != 409 {
		t.Fatalf("want the injected 409, got %v", err)
	}
	if reqs := e.requestsSince(before, Match{Verbs: []string{"create"}}); len(reqs) != 1 || reqs[0].Conflict == nil || !strings.Contains(reqs[0].Conflict.NotWritten, "a create") || reqs[0].ConflictMissed() {
		t.Errorf("the refused create's record: %+v, want not written, as meant", reqs)
	}

	// An object gone: the 409 came with no write behind it, and the
	// record says so.
	gone := e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Verbs: []string{"delete"}, Resource: "configmaps"}})
	if err := cms.Delete(t.Context(), "nothing", metav1.DeleteOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	if reqs := e.requestsSince(before, Match{Verbs: []string{"delete"}}); len(reqs) != 1 || reqs[0].Fault != gone || !reqs[0].ConflictMissed() || !strings.Contains(reqs[0].Conflict.NotWritten, "not found") {
		t.Errorf("the refused delete of nothing: %+v, want its conflict missed, not found", reqs)
	}

	// The mark is a label, which a Deployment's generation does not count
	// (its annotations it does: a status that observed generation 1 would
	// lag 2 behind for no change of the Deployment).
	deploys := kubernetes.NewForConfigOrDie(e.victimConfig(false)).AppsV1().Deployments(e.ns)
	labels := map[string]string{"app": "web"}
	made, err := e.admin.AppsV1().Deployments(e.ns).Create(t.Context(), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "none"}}}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Resource: "deployments"}})
	if _, err := deploys.UpdateStatus(t.Context(), made, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	after, err := e.admin.AppsV1().Deployments(e.ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion == made.ResourceVersion || after.Generation != made.Generation || !maps.Equal(after.Labels, made.Labels) {
		t.Errorf("the Deployment after its status write's conflict: resourceVersion %s (was %s), generation %d (was %d), labels %v: want it written, its generation and labels as they were",
			after.ResourceVersion, made.ResourceVersion, after.Generation, made.Generation, after.Labels)
	}

	// An EndpointSlice's generation counts its labels: its mark is an
	// annotation.
	eps := kubernetes.NewForConfigOrDie(e.victimConfig(false)).DiscoveryV1().EndpointSlices(e.ns)
	slice, err := e.admin.DiscoveryV1().EndpointSlices(e.ns).Create(t.Context(), &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}, AddressType: discoveryv1.AddressTypeIPv4}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Conflict: true, Match: Match{Resource: "endpointslices"}})
	if _, err := eps.Update(t.Context(), slice, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	if after, err := e.admin.DiscoveryV1().EndpointSlices(e.ns).Get(t.Context(), "web-1", metav1.GetOptions{}); err != nil || after.ResourceVersion == slice.ResourceVersion || after.Generation != slice.Generation {
		t.Errorf("the EndpointSlice after its update's conflict: %v, %+v; want it written, its generation %d as it was", err, after.ObjectMeta, slice.Generation)
	}

	// Without Conflict, a 409 writes nothing.
	plain, err := e.admin.CoreV1().ConfigMaps(e.ns).Get(t.Context(), "x", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.addRule(t, Rule{Action: Respond, Code: 409, Count: 1, Match: Match{Verbs: []string{"update"}, Resource: "configmaps"}})
	if _, err := cms.Update(t.Context(), plain, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("want a Conflict from the injected 409, got %v", err)
	}
	if after, err := e.admin.CoreV1().ConfigMaps(e.ns).Get(t.Context(), "x", metav1.GetOptions{}); err != nil || after.ResourceVersion != plain.ResourceVersion {
		t.Errorf("a 409 without Conflict moved the object: %v, resourceVersion %s, was %s", err, after.ResourceVersion, plain.ResourceVersion)
	}
}

// TestSlowHoldsMatchingRequests: a slowed delete reaches the API server
// only after the rule's delay; other requests pass at once.
func TestSlowHoldsMatchingRequests(t *testing.T) {
	e := newEnv(t, cluster(t))
	e.createCM(t, "x", nil)
	cms := kubernetes.NewForConfigOrDie(e.victimConfig(false)).CoreV1().ConfigMaps(e.ns)
	before := e.proxy.LastRequestID()
	slow := e.addRule(t, Rule{Action: Slow, Delay: metav1.Duration{Duration: 500 * time.Millisecond}, Match: Match{Verbs: []string{"delete"}, Resource: "configmaps"}})
	if _, err := cms.Get(t.Context(), "x", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(t.Context(), "x", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.requestsSince(before, Match{Resource: "configmaps"}) {
		held := r.End.Sub(r.Start) >= 500*time.Millisecond
		switch r.Verb {
		case "delete":
			if r.Fault != slow || !held || r.Code != 200 {
				t.Errorf("delete: fault %q, held %v, code %d; want %s, held 500ms, 200", r.Fault, held, r.Code, slow)
			}
		case "get":
			if r.Fault != "" {
				t.Errorf("the get was slowed too: %+v", r)
			}
		}
	}
}

func TestRuleValidation(t *testing.T) {
	p := &Proxy{rules: newRuleSet(), watches: newWatchRegistry()}
	for _, tc := range []struct {
		rule Rule
		want string
	}{
		{Rule{Action: "explode"}, `unknown action "explode"`},
		{Rule{Action: Respond, Code: 200}, "not an HTTP error status"},
		{Rule{Action: Delay}, "needs a positive delay"},
		{Rule{Action: Slow}, "slow: needs a positive delay"},
		{Rule{Action: Expire, Count: -1}, "negative"},
		{Rule{Action: Respond, Code: 409, Skip: -1}, "skip -1 is negative"},
		{Rule{Action: Respond, Code: 500, Conflict: true}, "conflict is for respond with code 409 only, got code 500"},
		{Rule{Action: Stall, Conflict: true}, "stall: conflict is for respond with code 409 only"},
	} {
		if _, err := p.AddRule(tc.rule); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddRule(%+v) = %v, want %q", tc.rule, err, tc.want)
		}
	}
}
