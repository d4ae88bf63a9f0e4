package composite_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/composite"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/reference/reftest"
)

var env reftest.Env

func TestMain(m *testing.M) { reftest.Main(m, "composite-test", &env) }

type scenario struct {
	t    *testing.T
	e    *reftest.Env
	ns   string
	ext  *external.Client
	subj *runner.Subject
}

// start runs the composite controller (mode bug) against a fresh external
// system, in a new namespace.
func start(t *testing.T, e *reftest.Env, bug string) *scenario {
	srv := httptest.NewServer(external.NewServer().Handler())
	t.Cleanup(srv.Close)
	subj := e.Start(t, "composite", 1, "--leader-elect=false", "--external-url="+srv.URL, "--bug="+bug)
	s := &scenario{t: t, e: e, ns: e.Cluster.Namespace(t, "composite"), ext: &external.Client{Base: srv.URL}, subj: subj}
	t.Cleanup(func() {
		if t.Failed() {
			ops, err := s.ext.Log(context.Background())
			t.Logf("external operation log (err %v):", err)
			for _, op := range ops {
				t.Logf("  %s %s %s by %s -> %s", op.At.Format("05.000"), op.Op, op.Name, op.Owner, op.Result)
			}
			for _, name := range []string{"old", "new"} {
				c, cerr := s.claim(name)
				m, merr := s.managed(name)
				var x refv1.Composite
				xerr := s.e.Client.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, &x)
				t.Logf("%s: claim %v %+v fin=%v | composite %v %+v | managed %v uid=%s %+v", name, cerr, c.Status.Conditions, c.Finalizers, xerr, x.Status.Conditions, merr, m.UID, m.Status.Conditions)
			}
		}
	})
	return s
}

func (s *scenario) claim(name string) (*refv1.Claim, error) {
	var c refv1.Claim
	err := s.e.Client.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, &c)
	return &c, err
}

func (s *scenario) composite(name string) (*refv1.Composite, error) {
	var x refv1.Composite
	err := s.e.Client.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, &x)
	return &x, err
}

func (s *scenario) managed(name string) (*refv1.Managed, error) {
	var m refv1.Managed
	err := s.e.Client.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, &m)
	return &m, err
}

func readyOf(c *refv1.Claim) *metav1.Condition {
	return meta.FindStatusCondition(c.Status.Conditions, refv1.TypeReady)
}

func (s *scenario) createReady(name, externalName string) {
	s.t.Helper()
	c := &refv1.Claim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.ns}, Spec: refv1.ExternalSpec{ExternalName: externalName}}
	if err := s.e.Client.Create(s.t.Context(), c); err != nil {
		s.t.Fatal(err)
	}
	reftest.Eventually(s.t, 20*time.Second, "claim "+name+" to be Ready", func() bool {
		c, err := s.claim(name)
		return err == nil && meta.IsStatusConditionTrue(c.Status.Conditions, refv1.TypeReady)
	})
}

// quietFor waits until the controller has made no write (Lease and Event
// writes aside) for d. A claim turns Ready a few milliseconds before the
// last status writes of its Composite and Managed, whose events bring the
// claim more reconciles: a change made meanwhile meets one of them.
func (s *scenario) quietFor(d time.Duration) {
	s.t.Helper()
	reftest.Eventually(s.t, 10*time.Second, "the controller to make no write for "+d.String(), func() bool {
		var last time.Time
		for _, r := range s.subj.Proxy(0).Requests() {
			if r.IsWrite() && r.Resource != "leases" && r.Resource != "events" && r.Start.After(last) {
				last = r.Start
			}
		}
		return time.Since(last) >= d
	})
}

func (s *scenario) configure(cfg external.Config) {
	if err := s.ext.Configure(s.t.Context(), cfg); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scenario) deleteClaim(name string) {
	c, _ := s.claim(name)
	if err := s.e.Client.Delete(s.t.Context(), c); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scenario) failedDeletes() int {
	ops, _ := s.ext.Log(context.Background())
	n := 0
	for _, op := range ops {
		if op.Op == "delete" && op.Result == "failed" {
			n++
		}
	}
	return n
}

// finish lets deletes succeed and waits for the whole chain to go: the
// foreground deletion must complete once nothing blocks it.
func (s *scenario) finish(name string) {
	s.configure(external.Config{})
	reftest.Eventually(s.t, 30*time.Second, "claim "+name+" to be gone", func() bool {
		_, err := s.claim(name)
		return apierrors.IsNotFound(err)
	})
}

func TestStatusWhileDeleting(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugDeletingStatusNotPersisted}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		s.configure(external.Config{FailDeletes: true})
		s.deleteClaim("app")
		if bug == "" {
			// (a) within 5s: deleting and Ready=False/Deleting.
			reftest.Eventually(t, 5*time.Second, "Ready=False reason=Deleting", func() bool {
				c, err := s.claim("app")
				r := readyOf(c)
				return err == nil && c.DeletionTimestamp != nil && r != nil && r.Status == metav1.ConditionFalse && r.Reason == refv1.ReasonDeleting
			})
		} else {
			reftest.Eventually(t, 15*time.Second, "the deletion to be under way", func() bool { return s.failedDeletes() >= 2 })
			c, _ := s.claim("app")
			if r := readyOf(c); c.DeletionTimestamp == nil || r == nil || r.Status != metav1.ConditionTrue || r.Reason != refv1.ReasonAvailable {
				t.Errorf("want the stale Ready=True/Available while deleting, got deleting=%v ready=%+v", c.DeletionTimestamp != nil, r)
			}
		}
		s.finish("app")
	})
}

func TestBlockingReasonIsNamed(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugNoBlockingReason}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		s.configure(external.Config{FailDeletes: true})
		s.deleteClaim("app")
		names := func() bool {
			c, err := s.claim("app")
			r := readyOf(c)
			return err == nil && r != nil && strings.Contains(r.Message, "Managed "+s.ns+"/app")
		}
		if bug == "" {
			// (b) within 15s the claim names the blocking Managed.
			reftest.Eventually(t, 15*time.Second, "the claim to name the blocking Managed", names)
		} else {
			reftest.Eventually(t, 15*time.Second, "several failed external deletes", func() bool { return s.failedDeletes() >= 3 })
			if names() {
				t.Error("no-blocking-reason named the blocking Managed")
			}
		}
		s.finish("app")
	})
}

// TestSameExternalName creates a new claim for an external name whose old
// claim is still deleting it (a slow external delete).
func TestSameExternalName(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugExternalNameReuse}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("old", s.ns+"-db")
		oldMR, _ := s.managed("old")
		s.configure(external.Config{DeleteLatency: metav1.Duration{Duration: 2 * time.Second}})
		s.deleteClaim("old")
		reftest.Eventually(t, 10*time.Second, "the old Managed to start deleting", func() bool {
			m, err := s.managed("old")
			return err == nil && m.DeletionTimestamp != nil
		})
		s.createReady("new", s.ns+"-db")
		newMR, _ := s.managed("new")
		reftest.Eventually(t, 30*time.Second, "the old claim to be gone", func() bool {
			_, err := s.claim("old")
			return apierrors.IsNotFound(err)
		})
		ops, err := s.ext.Log(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		reused := deleteAfterUse(ops, string(oldMR.UID), string(newMR.UID))
		res, err := s.ext.Observe(t.Context(), s.ns+"-db", "test")
		present := err == nil && res.Owner == string(newMR.UID)
		c, _ := s.claim("new")
		stillReady := meta.IsStatusConditionTrue(c.Status.Conditions, refv1.TypeReady)
		if bug == "" && (reused || !present || !stillReady) {
			t.Errorf("(c) broken in correct mode: delete by old after use by new=%v, resource present for new=%v, new Ready=%v", reused, present, stillReady)
		}
		if bug != "" && (!reused || present || !stillReady) {
			t.Errorf("external-name-reuse should show the old owner deleting what the Ready new one uses: reused=%v present=%v ready=%v", reused, present, stillReady)
		}
		s.deleteClaim("new")
		s.finish("new")
	})
}

// deleteAfterUse reports whether the log shows a successful delete by
// oldOwner after any operation by newOwner.
func deleteAfterUse(ops []external.Op, oldOwner, newOwner string) bool {
	used := false
	for _, op := range ops {
		used = used || op.Owner == newOwner
		if used && op.Owner == oldOwner && op.Op == "delete" && op.Result == "ok" {
			return true
		}
	}
	return false
}

// writes are the controller's writes of resource's object name (any
// subresource) begun after from, as its proxy logged them, verb first: a
// create names no object, and is not among them.
func (s *scenario) writes(from time.Time, resource, name string) []string {
	var out []string
	for _, r := range s.subj.Proxy(0).Requests() {
		if r.IsWrite() && r.Resource == resource && r.Namespace == s.ns && r.Name == name && r.Start.After(from) {
			out = append(out, strings.TrimSuffix(r.Verb+" "+r.Resource+"/"+r.Subresource, "/"))
		}
	}
	return out
}

// TestQuietWhenNothingChanged labels a Ready claim, which brings it a
// reconcile with nothing to do, then makes a second claim Ready: the
// claim controller's one worker took the first claim's reconcile before
// the second's. The correct mode wrote nothing of the first; the hot loop
// rewrote its status.
func TestQuietWhenNothingChanged(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugStatusHotLoop}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		from := time.Now()
		c, _ := s.claim("app")
		patch := client.MergeFrom(c.DeepCopy())
		c.Labels = map[string]string{"steadystate.dev/changed": "true"}
		if err := s.e.Client.Patch(t.Context(), c, patch); err != nil {
			t.Fatal(err)
		}
		s.createReady("later", s.ns+"-later")
		w := s.writes(from, "claims", "app")
		if bug == "" && len(w) > 0 {
			t.Errorf("the correct mode wrote the claim with nothing changed: %v", w)
		}
		if bug != "" && !slices.Contains(w, "update claims/status") {
			t.Errorf("status-hot-loop should rewrite the claim's status with nothing changed, wrote %v", w)
		}
		for _, name := range []string{"app", "later"} {
			s.deleteClaim(name)
			s.finish(name)
		}
	})
}

// TestChildrenAfterRestart restarts the controller once a claim is Ready,
// then makes a second claim Ready: the restarted controller has been
// through the first claim by then (its initial list comes first). The
// correct mode adopted the Composite it found; recreate-children-on-restart
// deletes it and makes another.
func TestChildrenAfterRestart(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugRecreateChildrenOnRestart}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		x, err := s.composite("app")
		if err != nil {
			t.Fatal(err)
		}
		before := x.UID
		from := time.Now()
		if err := s.subj.Proc(0).Restart(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		if bug == "" {
			s.createReady("later", s.ns+"-later")
			x, err := s.composite("app")
			if w := s.writes(from, "composites", "app"); err != nil || x.UID != before || slices.Contains(w, "delete composites") {
				t.Errorf("the correct mode should adopt the Composite it finds after a restart: %v, uid %s (was %s), writes %v", err, x.UID, before, w)
			}
		} else {
			reftest.Eventually(t, 30*time.Second, "the Composite to be made again and the claim Ready", func() bool {
				x, err := s.composite("app")
				c, cerr := s.claim("app")
				return err == nil && x.UID != before && x.DeletionTimestamp == nil && cerr == nil && meta.IsStatusConditionTrue(c.Status.Conditions, refv1.TypeReady)
			})
			if w := s.writes(from, "composites", "app"); !slices.Contains(w, "delete composites") {
				t.Errorf("recreate-children-on-restart should delete the Composite it finds (and create another, with a new uid), wrote %v", w)
			}
			s.createReady("later", s.ns+"-later")
		}
		for _, name := range []string{"app", "later"} {
			s.deleteClaim(name)
			s.finish(name)
		}
	})
}

// TestDeletionLeavesNothing deletes a Ready claim and, once it is gone,
// makes a second claim Ready: the controller has had its next passes by
// then. The correct mode released the claim's finalizer only once its
// Composite and Managed were gone; release-finalizer-early released it at
// once and left them.
func TestDeletionLeavesNothing(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugReleaseFinalizerEarly}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		s.deleteClaim("app")
		reftest.Eventually(t, 30*time.Second, "claim app to be gone", func() bool {
			_, err := s.claim("app")
			return apierrors.IsNotFound(err)
		})
		s.createReady("later", s.ns+"-later")
		x, xerr := s.composite("app")
		m, merr := s.managed("app")
		if bug == "" && (!apierrors.IsNotFound(xerr) || !apierrors.IsNotFound(merr)) {
			t.Errorf("the correct mode left the Composite (%v) or the Managed (%v) of a deleted claim", xerr, merr)
		}
		if bug != "" {
			if xerr != nil || merr != nil || x.DeletionTimestamp != nil || m.DeletionTimestamp != nil {
				t.Errorf("release-finalizer-early should leave the Composite (%v, deleting %v) and the Managed (%v, deleting %v) in place", xerr, x.DeletionTimestamp != nil, merr, m.DeletionTimestamp != nil)
			}
			// What it left, deleted while the provider runs.
			if xerr == nil {
				if err := s.e.Client.Delete(t.Context(), x, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
					t.Fatal(err)
				}
			}
			reftest.Eventually(t, 30*time.Second, "the Composite and Managed left behind to be gone", func() bool {
				_, xerr := s.composite("app")
				_, merr := s.managed("app")
				return apierrors.IsNotFound(xerr) && apierrors.IsNotFound(merr)
			})
		}
		s.deleteClaim("later")
		s.finish("later")
	})
}

// TestOrphansWhileTheCacheIsBehind stalls the controller's watch of
// Claims, labels a Ready claim (the cache does not see it), annotates its
// Composite (a Composite reconcile with the cache behind) and makes a
// Composite without a Claim (the Composite controller's one worker took
// the first before it). The correct mode left the Composite alone;
// delete-orphans-from-cache copied the label from a fresh read, did not
// find the Claim with it in its cache and deleted the Composite.
func TestOrphansWhileTheCacheIsBehind(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugDeleteOrphansFromCache}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		x, err := s.composite("app")
		if err != nil {
			t.Fatal(err)
		}
		before := x.UID
		from := time.Now()
		tl := chaos.NewTimeline()
		stall, err := chaos.Begin(t.Context(), tl, chaos.Stall("claims", 0), s.e.Target(s.subj))
		if err != nil {
			t.Fatal(err)
		}
		s.label("app")
		patch := client.MergeFrom(x.DeepCopy())
		x.Annotations = map[string]string{"steadystate.dev/touched": "true"}
		if err := s.e.Client.Patch(t.Context(), x, patch); err != nil {
			t.Fatal(err)
		}
		probe := &refv1.Composite{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: s.ns}, Spec: refv1.ExternalSpec{ExternalName: s.ns + "-probe"}}
		if err := s.e.Client.Create(t.Context(), probe); err != nil {
			t.Fatal(err)
		}
		if bug == "" {
			reftest.Eventually(t, 20*time.Second, "the probe Composite's Managed", func() bool {
				_, err := s.managed("probe")
				return err == nil
			})
			if w := s.writes(from, "composites", "app"); len(w) > 0 {
				t.Errorf("the correct mode wrote the Composite of a claim whose watch is stalled: %v", w)
			}
		} else {
			reftest.Eventually(t, 20*time.Second, "the Composite to be deleted as an orphan", func() bool {
				return slices.Contains(s.writes(from, "composites", "app"), "delete composites")
			})
		}
		if err := stall.End(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := s.e.Client.Delete(t.Context(), probe); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
		reftest.Eventually(t, 30*time.Second, "the claim Ready with a Composite, the probe gone", func() bool {
			x, xerr := s.composite("app")
			c, cerr := s.claim("app")
			_, perr := s.managed("probe")
			return xerr == nil && x.DeletionTimestamp == nil && cerr == nil && meta.IsStatusConditionTrue(c.Status.Conditions, refv1.TypeReady) && apierrors.IsNotFound(perr)
		})
		if x, _ := s.composite("app"); bug == "" && x.UID != before {
			t.Errorf("the correct mode made the Composite again: uid %s, was %s", x.UID, before)
		}
		s.deleteClaim("app")
		s.finish("app")
	})
}

// TestChangeAcrossARelist drops the watch events of Claims, changes a
// Ready claim's tier (its event dropped), then forces a relist of Claims
// (the re-watch answered 410) and makes a second claim Ready: the claim
// controller's one worker has been through what the relist brought by
// then. The correct mode synced the change (its informer compares the
// relist with its cache); skip-changes-on-relist took the relist as
// handled and never did.
func TestChangeAcrossARelist(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", composite.BugSkipChangesOnRelist}, func(t *testing.T, bug string) {
		s := start(t, e, bug)
		s.createReady("app", s.ns+"-db")
		// A reconcile still running when the change is made reads the
		// Claim fresh (skip-changes-on-relist reads Claims from the API
		// server) and syncs it whatever its watch missed.
		s.quietFor(time.Second)
		target := s.e.Target(s.subj)
		tl := chaos.NewTimeline()
		drop, err := chaos.Begin(t.Context(), tl, chaos.DropEvents("claims", proxy.EventMatch{Namespace: s.ns}, 0), target)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := s.claim("app")
		patch := client.MergeFrom(c.DeepCopy())
		c.Spec.Tier = "large"
		if err := s.e.Client.Patch(t.Context(), c, patch); err != nil {
			t.Fatal(err)
		}
		reftest.Eventually(t, 10*time.Second, "the change's event to be dropped", func() bool {
			return slices.ContainsFunc(s.subj.Proxy(0).Events(), func(ev proxy.Event) bool {
				return !ev.Delivered && ev.Fault != "" && ev.Kind == "Claim" && ev.Name == "app" && ev.ResourceVersion == c.ResourceVersion
			})
		})
		if err := drop.End(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := chaos.Inject(t.Context(), tl, &chaos.ForcedRelist{Resource: "claims"}, target); err != nil {
			t.Fatal(err)
		}
		// The relist is done once a watch of Claims starts after the
		// 410: skip-changes-on-relist lists before it watches, and a
		// claim created before that list would be in it, never handed
		// on (the bug itself, on the wrong claim).
		reftest.Eventually(t, 10*time.Second, "a watch of Claims after the 410", func() bool {
			var expired time.Time
			for _, r := range s.subj.Proxy(0).Requests() {
				if r.Resource != "claims" || r.Verb != "watch" {
					continue
				}
				if r.Fault != "" {
					expired = r.Start
				} else if !expired.IsZero() && r.Start.After(expired) {
					return true
				}
			}
			return false
		})
		synced := func() bool {
			c, err := s.claim("app")
			x, xerr := s.composite("app")
			r := readyOf(c)
			return err == nil && xerr == nil && r != nil && r.ObservedGeneration == c.Generation && c.Status.ObservedGeneration == c.Generation && x.Spec.Tier == "large"
		}
		if bug == "" {
			reftest.Eventually(t, 20*time.Second, "the tier synced to the Composite and observed by the claim", synced)
		}
		s.createReady("later", s.ns+"-later")
		if bug != "" && synced() {
			t.Error("skip-changes-on-relist synced a change whose event was lost before the relist")
		}
		for _, name := range []string{"app", "later"} {
			s.deleteClaim(name)
			s.finish(name)
		}
	})
}

// label labels a claim as the reconcile suite's change does.
func (s *scenario) label(name string) {
	s.t.Helper()
	c, err := s.claim(name)
	if err != nil {
		s.t.Fatal(err)
	}
	patch := client.MergeFrom(c.DeepCopy())
	c.Labels = map[string]string{"steadystate.dev/changed": "true"}
	if err := s.e.Client.Patch(s.t.Context(), c, patch); err != nil {
		s.t.Fatal(err)
	}
}
