package stack_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/reftest"
	"github.com/steadystate-dev/steadystate/reference/stack"
)

var env reftest.Env

func TestMain(m *testing.M) { reftest.Main(m, "stack-test", &env) }

// within is how long the controller may take for each step: a settle of
// the steady-state binding is 20 s.
const within = 20 * time.Second

type scenario struct {
	t    *testing.T
	c    client.Client
	ns   string
	subj *runner.Subject
}

// start runs refctl stack (mode bug) for a new namespace, with a Secret
// and a Stack that copies it applied.
func start(t *testing.T, e *reftest.Env, bug string) *scenario {
	ns := e.Cluster.Namespace(t, "stack")
	s := &scenario{t: t, c: e.Client, ns: ns}
	s.subj = e.Start(t, "stack", 1, "--watch-namespace="+ns, "--bug="+bug)
	t.Cleanup(s.sweep)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "stack-db", Namespace: ns}, StringData: map[string]string{"password": "stack-initial-value"}}
	if err := s.c.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	st := &refv1.Stack{ObjectMeta: metav1.ObjectMeta{Name: "steady", Namespace: ns}, Spec: refv1.StackSpec{Tier: "small", SecretName: "stack-db"}}
	if err := s.c.Create(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	return s
}

// sweep removes what a test leaves outside its namespace (the Slot, the
// audit record) and the Stack's finalizers, so that the namespace goes.
func (s *scenario) sweep() {
	ctx := context.Background()
	name := namesIn(s.ns)
	_ = s.c.Delete(ctx, &refv1.Slot{ObjectMeta: metav1.ObjectMeta{Name: name.slot}})
	_ = s.c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: stack.AuditNamespace, Name: name.audit}})
	if st, err := s.stack(); err == nil && len(st.Finalizers) > 0 {
		st.Finalizers = nil
		_ = s.c.Update(ctx, st)
	}
}

// names are the names of the children of the Stack "steady" in ns that do
// not depend on its uid.
type names struct{ config, mirror, creds, slot, audit string }

func namesIn(ns string) names {
	return names{config: "steady-config", mirror: "steady-mirror", creds: "steady-creds", slot: ns + "-steady", audit: "stack-" + ns + "-steady"}
}

func (s *scenario) stack() (*refv1.Stack, error) {
	var st refv1.Stack
	err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: "steady"}, &st)
	return &st, err
}

func (s *scenario) configMap(ns, name string) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := s.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &cm)
	return &cm, err
}

func (s *scenario) slot() (*refv1.Slot, error) {
	var sl refv1.Slot
	err := s.c.Get(context.Background(), client.ObjectKey{Name: namesIn(s.ns).slot}, &sl)
	return &sl, err
}

func (s *scenario) secret(name string) (*corev1.Secret, error) {
	var sec corev1.Secret
	err := s.c.Get(context.Background(), client.ObjectKey{Namespace: s.ns, Name: name}, &sec)
	return &sec, err
}

func (s *scenario) eventually(what string, cond func() bool) {
	s.t.Helper()
	reftest.Eventually(s.t, within, what, cond)
}

// ready reports whether the Stack is Ready, Available and Synced for its
// generation, each condition for it too.
func ready(st *refv1.Stack) bool {
	if st.Status.ObservedGeneration != st.Generation {
		return false
	}
	for _, typ := range []string{refv1.TypeReady, stack.TypeAvailable, refv1.TypeSynced} {
		c := meta.FindStatusCondition(st.Status.Conditions, typ)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != st.Generation {
			return false
		}
	}
	return true
}

// settled waits until every child has tier and the credentials hold
// password, and the Stack is ready with that tier.
func (s *scenario) settled(tier, password string) {
	s.t.Helper()
	n := namesIn(s.ns)
	s.eventually("the Stack and every child at tier "+tier+" with password "+password, func() bool {
		st, err := s.stack()
		if err != nil || !ready(st) || st.Status.Tier != tier {
			return false
		}
		for _, key := range []client.ObjectKey{{Namespace: s.ns, Name: n.config}, {Namespace: s.ns, Name: n.mirror}, {Namespace: s.ns, Name: stack.LedgerName(st)}} {
			cm, err := s.configMap(key.Namespace, key.Name)
			if err != nil || cm.Data["tier"] != tier {
				return false
			}
		}
		sl, err := s.slot()
		if err != nil || sl.Spec.Tier != tier {
			return false
		}
		sec, err := s.secret(n.creds)
		return err == nil && string(sec.Data["password"]) == password
	})
}

// gone waits until the Stack and every child it had are gone, the owned
// ones by the garbage collector.
func (s *scenario) gone(ledger string) {
	s.t.Helper()
	n := namesIn(s.ns)
	s.eventually("the Stack and every child to be gone", func() bool {
		_, err := s.stack()
		if !apierrors.IsNotFound(err) {
			return false
		}
		for _, key := range []client.ObjectKey{{Namespace: s.ns, Name: n.config}, {Namespace: s.ns, Name: n.mirror}, {Namespace: s.ns, Name: ledger}, {Namespace: stack.AuditNamespace, Name: n.audit}} {
			if _, err := s.configMap(key.Namespace, key.Name); !apierrors.IsNotFound(err) {
				return false
			}
		}
		if _, err := s.secret(n.creds); !apierrors.IsNotFound(err) {
			return false
		}
		_, err = s.slot()
		return apierrors.IsNotFound(err)
	})
}

func (s *scenario) patchStack(merge string) {
	s.t.Helper()
	st, err := s.stack()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.c.Patch(s.t.Context(), st, client.RawPatch("application/merge-patch+json", []byte(merge))); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scenario) deleteStack() {
	s.t.Helper()
	st, err := s.stack()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.c.Delete(s.t.Context(), st); err != nil {
		s.t.Fatal(err)
	}
}

// requests are the controller's requests, as its proxy saw them.
func (s *scenario) requests(match func(proxy.Request) bool) []proxy.Request {
	var out []proxy.Request
	for _, r := range s.subj.Proxy(0).Requests() {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}

// TestCorrectStack drives the correct mode through the steady-state
// binding's life: every child made with its content and the Stack ready,
// a new tier and a rotated Secret synced, then the deletion: every child
// gone, wherever it lives, and the finalizer released.
func TestCorrectStack(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{""}, func(t *testing.T, _ string) {
		s := start(t, e, "")
		n := namesIn(s.ns)
		s.settled("small", "stack-initial-value")

		st, _ := s.stack()
		if !slices.Contains(st.Finalizers, stack.Finalizer) {
			t.Errorf("the Stack's finalizers are %v, want %s", st.Finalizers, stack.Finalizer)
		}
		sum := sha256.Sum256([]byte(st.UID))
		if want := "steady-" + hex.EncodeToString(sum[:])[:5]; stack.LedgerName(st) != want {
			t.Errorf("the ledger is named %s, want %s", stack.LedgerName(st), want)
		}
		config, _ := s.configMap(s.ns, n.config)
		if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(config.Data["token"]) {
			t.Errorf("the configuration's token is %q, want 8 hex digits", config.Data["token"])
		}
		if st.Status.ConfigUID != string(config.UID) {
			t.Errorf("status.configUID is %q, the configuration's uid %q", st.Status.ConfigUID, config.UID)
		}
		ledger, _ := s.configMap(s.ns, stack.LedgerName(st))
		creds, _ := s.secret(n.creds)
		for _, o := range []client.Object{config, ledger, creds} {
			if ref := metav1.GetControllerOf(o); ref == nil || ref.UID != st.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
				t.Errorf("%s: controller %+v, want the Stack, blocking its deletion", o.GetName(), ref)
			}
		}
		mirror, _ := s.configMap(s.ns, n.mirror)
		audit, err := s.configMap(stack.AuditNamespace, n.audit)
		if err != nil || audit.Data["stack"] != s.ns+"/steady" {
			t.Errorf("audit record: %v %v", err, audit.Data)
		}
		sl, _ := s.slot()
		if sl.Spec.Stack != s.ns+"/steady" {
			t.Errorf("the Slot's stack is %q", sl.Spec.Stack)
		}
		if st.Spec.SlotName != sl.Name {
			t.Errorf("spec.slotName %q, want the Slot's name %q", st.Spec.SlotName, sl.Name)
		}
		for _, o := range []client.Object{mirror, audit, sl} {
			if len(o.GetOwnerReferences()) > 0 {
				t.Errorf("%s has owners %v, want none", o.GetName(), o.GetOwnerReferences())
			}
		}
		for _, o := range []client.Object{config, mirror, ledger} {
			if o.GetLabels()[stack.LabelName] != "steady" {
				t.Errorf("%s is labelled %v", o.GetName(), o.GetLabels())
			}
		}
		// The mirror only ever comes from a server-side apply; the access
		// review is the process's first create.
		if applies := s.requests(func(r proxy.Request) bool {
			return r.Verb == "patch" && r.Resource == "configmaps" && r.Name == n.mirror && r.Code == 201
		}); len(applies) != 1 {
			t.Errorf("the mirror was made by %d applies answered 201, want 1", len(applies))
		}
		if reviews := s.requests(func(r proxy.Request) bool {
			return r.Verb == "create" && r.Resource == "selfsubjectaccessreviews" && r.Code == 201
		}); len(reviews) != 1 {
			t.Errorf("%d access reviews, want 1 at start", len(reviews))
		}

		s.patchStack(`{"spec":{"tier":"large"}}`)
		s.settled("large", "stack-initial-value")
		if after, _ := s.configMap(s.ns, n.config); after.Data["token"] != config.Data["token"] {
			t.Errorf("the token changed with the tier: %q, was %q", after.Data["token"], config.Data["token"])
		}
		sec, _ := s.secret("stack-db")
		sec.StringData = map[string]string{"password": "stack-rotated-value"}
		if err := s.c.Update(t.Context(), sec); err != nil {
			t.Fatal(err)
		}
		s.settled("large", "stack-rotated-value")
		st, _ = s.stack()
		// Generation 2 is the controller's own write of spec.slotName, 3
		// the harness's change.
		if st.Status.ObservedGeneration != 3 {
			t.Errorf("observedGeneration %d after the controller's write of spec.slotName and one change of spec, want 3", st.Status.ObservedGeneration)
		}

		s.deleteStack()
		s.gone(stack.LedgerName(st))
		if refused := s.requests(func(r proxy.Request) bool { return r.Code == 422 }); len(refused) > 0 {
			t.Errorf("the API server refused %d writes with 422: %s", len(refused), refused[0].Message)
		}
	})
}

// TestBugsSeenWithoutFaults checks the bugs whose symptom a fault-free
// run shows, one namespace and one controller each, side by side.
func TestBugsSeenWithoutFaults(t *testing.T) {
	e := env.Require(t)
	for _, tc := range []struct {
		bug   string
		check func(t *testing.T, s *scenario)
	}{
		{stack.BugLeakInOtherNamespace, func(_ *testing.T, s *scenario) {
			st := s.readyThenDeleted()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
			s.stays("the audit record in "+stack.AuditNamespace, func() bool {
				_, err := s.configMap(stack.AuditNamespace, namesIn(s.ns).audit)
				return err == nil
			})
			s.goneBut(stack.LedgerName(st), "audit")
		}},
		{stack.BugLeakByApply, func(_ *testing.T, s *scenario) {
			st := s.readyThenDeleted()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
			s.stays("the mirror", func() bool { _, err := s.configMap(s.ns, namesIn(s.ns).mirror); return err == nil })
			s.goneBut(stack.LedgerName(st), "mirror")
		}},
		{stack.BugLeakClusterChild, func(_ *testing.T, s *scenario) {
			st := s.readyThenDeleted()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
			s.stays("the Slot", func() bool { _, err := s.slot(); return err == nil })
			s.goneBut(stack.LedgerName(st), "slot")
		}},
		{stack.BugResurrectOnDelete, func(t *testing.T, s *scenario) {
			s.readyThenDeleted()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
			// Deleted by the cleanup, then applied again once the Stack
			// is gone.
			s.eventually("the mirror to come back", func() bool { _, err := s.configMap(s.ns, namesIn(s.ns).mirror); return err == nil })
			deletes := s.requests(func(r proxy.Request) bool {
				return r.Verb == "delete" && r.Resource == "configmaps" && r.Name == namesIn(s.ns).mirror && r.Code == 200
			})
			if len(deletes) == 0 {
				t.Error("the cleanup never deleted the mirror")
			}
			s.stays("the mirror", func() bool { _, err := s.configMap(s.ns, namesIn(s.ns).mirror); return err == nil })
		}},
		{stack.BugNeverAvailable, func(_ *testing.T, s *scenario) {
			s.eventually("Ready=True with Available=False (MinimumReplicasUnavailable)", func() bool {
				st, err := s.stack()
				if err != nil || st.Status.ObservedGeneration != st.Generation {
					return false
				}
				r := meta.FindStatusCondition(st.Status.Conditions, refv1.TypeReady)
				a := meta.FindStatusCondition(st.Status.Conditions, stack.TypeAvailable)
				return r != nil && r.Status == metav1.ConditionTrue && a != nil && a.Status == metav1.ConditionFalse && a.Reason == stack.ReasonMinimumReplicasUnavailable
			})
			s.deleteStack()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
		}},
		{stack.BugPanicEveryReconcile, func(t *testing.T, s *scenario) {
			s.eventually("a recovered panic in the log", func() bool { return s.subj.LogContains(0, "Observed a panic") })
			time.Sleep(2 * time.Second)
			st, err := s.stack()
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Finalizers) > 0 || len(st.Status.Conditions) > 0 {
				t.Errorf("the Stack got finalizers %v and conditions %v from a controller that panics first", st.Finalizers, st.Status.Conditions)
			}
			if writes := s.requests(func(r proxy.Request) bool {
				return r.IsWrite() && r.Resource != "selfsubjectaccessreviews" && r.Resource != "events"
			}); len(writes) > 0 {
				t.Errorf("%d writes, want none: %s %s %s", len(writes), writes[0].Verb, writes[0].Resource, writes[0].Name)
			}
			if exited, err := s.subj.Exited(); exited {
				t.Errorf("the process exited (%v): the panic must be recovered", err)
			}
			s.deleteStack()
			s.eventually("the Stack to be gone", func() bool { _, err := s.stack(); return apierrors.IsNotFound(err) })
		}},
		{stack.BugSecondFinalizerWhileDeleting, func(t *testing.T, s *scenario) {
			st := s.readyThenDeleted()
			s.gone(stack.LedgerName(st))
			refused := s.requests(func(r proxy.Request) bool {
				return r.Resource == "stacks" && r.Code == 422 && strings.Contains(r.Message, "no new finalizers can be added if the object is being deleted")
			})
			if len(refused) == 0 {
				t.Error("no write of the Stack was refused for adding a finalizer while it was being deleted")
			}
		}},
	} {
		t.Run("bug="+tc.bug, func(t *testing.T) {
			t.Parallel()
			tc.check(t, start(t, e, tc.bug))
		})
	}
}

// readyThenDeleted waits for the Stack to be ready with its children, and
// deletes it.
func (s *scenario) readyThenDeleted() *refv1.Stack {
	s.t.Helper()
	s.settled("small", "stack-initial-value")
	st, _ := s.stack()
	s.deleteStack()
	return st
}

// stays checks that cond holds now and still 2 s later.
func (s *scenario) stays(what string, cond func() bool) {
	s.t.Helper()
	if !cond() {
		s.t.Fatalf("%s is not there", what)
	}
	time.Sleep(2 * time.Second)
	if !cond() {
		s.t.Errorf("%s went after all", what)
	}
}

// goneBut checks that every child but the one named left is gone.
func (s *scenario) goneBut(ledger, left string) {
	s.t.Helper()
	n := namesIn(s.ns)
	check := map[string]func() error{
		"config": func() error { _, err := s.configMap(s.ns, n.config); return err },
		"mirror": func() error { _, err := s.configMap(s.ns, n.mirror); return err },
		"ledger": func() error { _, err := s.configMap(s.ns, ledger); return err },
		"creds":  func() error { _, err := s.secret(n.creds); return err },
		"slot":   func() error { _, err := s.slot(); return err },
		"audit":  func() error { _, err := s.configMap(stack.AuditNamespace, n.audit); return err },
	}
	s.eventually("every child but the "+left+" to be gone", func() bool {
		for name, get := range check {
			if name != left && !apierrors.IsNotFound(get()) {
				return false
			}
		}
		return true
	})
}

// uids are the uids of the Stack's children, by child.
type uids map[string]types.UID

// childUIDs reads the uid of each child the Stack has now.
func (s *scenario) childUIDs(st *refv1.Stack) uids {
	s.t.Helper()
	n := namesIn(s.ns)
	out := uids{}
	for child, get := range map[string]func() (client.Object, error){
		"config": func() (client.Object, error) { return s.configMap(s.ns, n.config) },
		"mirror": func() (client.Object, error) { return s.configMap(s.ns, n.mirror) },
		"ledger": func() (client.Object, error) { return s.configMap(s.ns, stack.LedgerName(st)) },
		"creds":  func() (client.Object, error) { return s.secret(n.creds) },
		"slot":   func() (client.Object, error) { return s.slot() },
		"audit":  func() (client.Object, error) { return s.configMap(stack.AuditNamespace, n.audit) },
	} {
		o, err := get()
		if err != nil {
			s.t.Fatalf("%s: %v", child, err)
		}
		out[child] = o.GetUID()
	}
	return out
}

// since are the controller's answered requests that began after from.
func (s *scenario) since(from time.Time, match func(proxy.Request) bool) []proxy.Request {
	return s.requests(func(r proxy.Request) bool { return r.Start.After(from) && r.Code > 0 && match(r) })
}

// observed waits until the Stack observed its generation (with Ready
// True or not) and the configuration has tier: the controller acted on
// the change.
func (s *scenario) observed(tier string) *refv1.Stack {
	s.t.Helper()
	var st *refv1.Stack
	s.eventually("the change to tier "+tier+" acted on", func() bool {
		var err error
		st, err = s.stack()
		if err != nil || st.Status.ObservedGeneration != st.Generation {
			return false
		}
		cm, err := s.configMap(s.ns, namesIn(s.ns).config)
		return err == nil && cm.Data["tier"] == tier
	})
	return st
}

func (s *scenario) rotate() {
	s.t.Helper()
	sec, err := s.secret("stack-db")
	if err != nil {
		s.t.Fatal(err)
	}
	sec.StringData = map[string]string{"password": "stack-rotated-value"}
	if err := s.c.Update(s.t.Context(), sec); err != nil {
		s.t.Fatal(err)
	}
}

// ledgers are the ConfigMaps the Stack owns other than its configuration.
func (s *scenario) ledgers(st *refv1.Stack) []string {
	var list corev1.ConfigMapList
	if err := s.c.List(context.Background(), &list, client.InNamespace(s.ns)); err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, cm := range list.Items {
		if ref := metav1.GetControllerOf(&cm); ref != nil && ref.UID == st.UID && cm.Name != namesIn(s.ns).config && cm.DeletionTimestamp == nil {
			out = append(out, cm.Name)
		}
	}
	return out
}

// TestBugsAfterRestart restarts the settled controller, then changes the
// tier and rotates the Secret: the restart bugs act (the new process
// finds the Stack carrying its finalizer), and the correct mode adopts
// what it finds.
func TestBugsAfterRestart(t *testing.T) {
	e := env.Require(t)
	for _, bug := range []string{"", stack.BugClusterChildRecreatedOnStart, stack.BugChurnByDeleteCollection, stack.BugDegradedAfterRestart,
		stack.BugHotLoopAfterRestart, stack.BugDanglingUIDAfterRestart, stack.BugStrayFinalizerAfterRestart, stack.BugOwnerNotControllerAfterRestart,
		stack.BugSecretNotResyncedAfterRestart, stack.BugRecreateChildrenOnStart, stack.BugStaleTierStatusAfterRestart, stack.BugLedgerRecreatedOnStart,
		stack.BugChurnInOtherNamespace, stack.BugClusterChildStaleAfterRestart, stack.BugSlotNameRewrittenAfterRestart} {
		t.Run("bug="+bug, func(t *testing.T) {
			t.Parallel()
			s := start(t, e, bug)
			n := namesIn(s.ns)
			s.settled("small", "stack-initial-value")
			st, _ := s.stack()
			before := s.childUIDs(st)
			from := time.Now()
			if err := s.subj.Proc(0).Restart(10 * time.Second); err != nil {
				t.Fatal(err)
			}
			reftest.Eventually(t, within, "the restarted process's first pass", func() bool {
				return s.subj.LogContains(0, "another process ran before this one")
			})
			s.patchStack(`{"spec":{"tier":"large"}}`)
			s.rotate()
			s.observed("large")
			// Its next passes: the rotation copied, or long enough not.
			reftest.Eventually(t, within, "the rotation to be copied, or 3 s", func() bool {
				sec, err := s.secret(n.creds)
				return (err == nil && string(sec.Data["password"]) == "stack-rotated-value") || time.Since(from) > 3*time.Second
			})
			time.Sleep(time.Second)
			st, _ = s.stack()
			after := s.childUIDs(st)
			changed := map[string]bool{}
			for child, uid := range before {
				changed[child] = after[child] != uid
			}
			deletes := s.since(from, func(r proxy.Request) bool { return r.Verb == "delete" || r.Verb == "deletecollection" })
			config, _ := s.configMap(s.ns, n.config)
			creds, _ := s.secret(n.creds)
			sl, _ := s.slot()
			degraded := meta.FindStatusCondition(st.Status.Conditions, stack.TypeDegraded)
			statusWrites := func() int {
				return len(s.since(from, func(r proxy.Request) bool { return r.Resource == "stacks" && r.Subresource == "status" }))
			}
			want := map[string]bool{}
			switch bug {
			case "":
				if st.Spec.SlotName != sl.Name {
					t.Errorf("spec.slotName %q, want the Slot's name %q", st.Spec.SlotName, sl.Name)
				}
				if len(deletes) > 0 || len(s.ledgers(st)) != 1 || slices.Contains(config.Finalizers, stack.HoldFinalizer) || degraded != nil ||
					st.Status.Tier != "large" || string(creds.Data["password"]) != "stack-rotated-value" || sl.Spec.Tier != "large" || st.Status.ConfigUID != string(config.UID) {
					t.Errorf("the correct mode after a restart: deletes %d, ledgers %v, finalizers %v, degraded %v, status %+v, password %q, slot tier %q, config uid %s",
						len(deletes), s.ledgers(st), config.Finalizers, degraded, st.Status, creds.Data["password"], sl.Spec.Tier, config.UID)
				}
				if ref := metav1.GetControllerOf(creds); ref == nil || ref.UID != st.UID {
					t.Errorf("the credentials lost their controller: %v", creds.OwnerReferences)
				}
			case stack.BugClusterChildRecreatedOnStart:
				want["slot"] = true
			case stack.BugChurnByDeleteCollection:
				want["config"], want["mirror"], want["ledger"] = true, true, true
				if !slices.ContainsFunc(deletes, func(r proxy.Request) bool { return r.Verb == "deletecollection" && r.Resource == "configmaps" }) {
					t.Error("no deletecollection of the ConfigMaps")
				}
				if applied := s.since(from, func(r proxy.Request) bool { return r.Verb == "patch" && r.Resource == "configmaps" && r.Code == 201 }); len(applied) != 3 {
					t.Errorf("%d applies made a ConfigMap, want 3", len(applied))
				}
			case stack.BugDegradedAfterRestart:
				if degraded == nil || degraded.Status != metav1.ConditionTrue {
					t.Errorf("Degraded %+v, want True", degraded)
				}
			case stack.BugHotLoopAfterRestart:
				n := statusWrites()
				time.Sleep(3 * time.Second)
				if more := statusWrites() - n; more < 2 {
					t.Errorf("%d status writes in 3 s with nothing changing, want a write every second", more)
				}
			case stack.BugDanglingUIDAfterRestart:
				want["config"] = true
				if st.Status.ConfigUID != string(before["config"]) {
					t.Errorf("status.configUID is %s, want the old configuration's %s", st.Status.ConfigUID, before["config"])
				}
			case stack.BugStrayFinalizerAfterRestart:
				if !slices.Contains(config.Finalizers, stack.HoldFinalizer) {
					t.Errorf("the configuration's finalizers are %v", config.Finalizers)
				}
			case stack.BugOwnerNotControllerAfterRestart:
				if ref := metav1.GetControllerOf(creds); ref != nil || len(creds.OwnerReferences) != 1 || creds.OwnerReferences[0].UID != st.UID {
					t.Errorf("the credentials' owners are %+v, want the Stack, not as controller", creds.OwnerReferences)
				}
			case stack.BugSecretNotResyncedAfterRestart:
				if string(creds.Data["password"]) != "stack-initial-value" {
					t.Errorf("the rotation was copied: %q", creds.Data["password"])
				}
			case stack.BugRecreateChildrenOnStart:
				want["config"], want["ledger"], want["creds"] = true, true, true
			case stack.BugStaleTierStatusAfterRestart:
				if st.Status.Tier != "small" || st.Status.ObservedGeneration != st.Generation {
					t.Errorf("status %+v, want tier small at generation %d", st.Status, st.Generation)
				}
			case stack.BugLedgerRecreatedOnStart:
				// Deleted, then made again under its name by the steady
				// path (a new uid), beside the one with a random suffix.
				want["ledger"] = true
				if l := s.ledgers(st); len(l) != 2 {
					t.Errorf("the Stack owns ledgers %v, want 2", l)
				}
			case stack.BugChurnInOtherNamespace:
				want["audit"] = true
			case stack.BugClusterChildStaleAfterRestart:
				if sl.Spec.Tier != "small" {
					t.Errorf("the Slot's tier is %q, want small", sl.Spec.Tier)
				}
			case stack.BugSlotNameRewrittenAfterRestart:
				if st.Spec.SlotName != st.Name || sl.Name != s.ns+"-"+st.Name || st.Status.Tier != "large" {
					t.Errorf("spec.slotName %q, Slot %q, status tier %q: want the Stack's name alone, the Slot %s-%s, tier large", st.Spec.SlotName, sl.Name, st.Status.Tier, s.ns, st.Name)
				}
			}
			// Only the children the bug makes again have a new uid.
			for child, c := range changed {
				if c != want[child] {
					t.Errorf("%s made again: %v, want %v", child, c, want[child])
				}
			}
		})
	}
}

// TestBugsAfterRefusedWrites answers the controller's writes of
// ConfigMaps, Secrets and Stacks with 500 while the tier changes, then
// lets them through: the refusal bugs act, and the correct mode syncs
// every child.
func TestBugsAfterRefusedWrites(t *testing.T) {
	e := env.Require(t)
	for _, bug := range []string{"", stack.BugUnownedChildStaleAfterRefusal, stack.BugDropFieldAfterRefusal, stack.BugExtraChildAfterRefusal, stack.BugSlowAfterRefusal} {
		t.Run("bug="+bug, func(t *testing.T) {
			t.Parallel()
			s := start(t, e, bug)
			n := namesIn(s.ns)
			s.settled("small", "stack-initial-value")
			from := time.Now()
			match := proxy.Match{Verbs: []string{"create", "update", "patch", "delete", "deletecollection"}, Resources: []string{"configmaps", "secrets", "stacks"}, Namespace: s.ns}
			refuse, err := chaos.Begin(t.Context(), chaos.NewTimeline(), chaos.RespondWith(500, match, 0, 0), e.Target(s.subj))
			if err != nil {
				t.Fatal(err)
			}
			s.patchStack(`{"spec":{"tier":"large"}}`)
			reftest.Eventually(t, within, "two refused writes", func() bool {
				return len(s.since(from, func(r proxy.Request) bool { return r.Code == 500 })) >= 2
			})
			if err := refuse.End(t.Context()); err != nil {
				t.Fatal(err)
			}
			if bug == stack.BugSlowAfterRefusal {
				// The children synced, the status left behind.
				reftest.Eventually(t, within, "the configuration at tier large", func() bool {
					cm, err := s.configMap(s.ns, n.config)
					return err == nil && cm.Data["tier"] == "large"
				})
				time.Sleep(5 * time.Second)
				if st, _ := s.stack(); st.Status.ObservedGeneration == st.Generation {
					t.Errorf("slow-after-refusal wrote the status within 5 s of the refusal")
				}
				return
			}
			st := s.observed("large")
			time.Sleep(time.Second)
			mirror, _ := s.configMap(s.ns, n.mirror)
			config, _ := s.configMap(s.ns, n.config)
			extra := slices.DeleteFunc(s.ledgers(st), func(name string) bool { return name == stack.LedgerName(st) })
			if got, want := mirror.Data["tier"], map[bool]string{true: "small", false: "large"}[bug == stack.BugUnownedChildStaleAfterRefusal]; got != want {
				t.Errorf("the mirror's tier is %q, want %q", got, want)
			}
			if _, has := config.Data["token"]; has == (bug == stack.BugDropFieldAfterRefusal) {
				t.Errorf("the configuration holds %v", config.Data)
			}
			if want := map[bool]int{true: 1, false: 0}[bug == stack.BugExtraChildAfterRefusal]; len(extra) != want || (want == 1 && !strings.HasPrefix(extra[0], "steady-retry-")) {
				t.Errorf("owned ConfigMaps beside the configuration and the ledger: %v", extra)
			}
		})
	}
}

// TestBugsAfterStaleView stalls the watches of Stacks, ConfigMaps and
// Secrets while the tier changes, for 2.5 s, then lets them resume:
// orphan-mirror-on-relist deletes the Stack's own mirror while its cache
// is behind, and applies it again; the correct mode deletes nothing.
func TestBugsAfterStaleView(t *testing.T) {
	e := env.Require(t)
	for _, bug := range []string{"", stack.BugOrphanMirrorOnRelist} {
		t.Run("bug="+bug, func(t *testing.T) {
			t.Parallel()
			s := start(t, e, bug)
			n := namesIn(s.ns)
			s.settled("small", "stack-initial-value")
			from := time.Now()
			stall := chaos.Stall("", 0)
			stall.Rule.Match = proxy.Match{Resources: []string{"configmaps", "secrets", "stacks.reference.steadystate.dev"}}
			a, err := chaos.Begin(t.Context(), chaos.NewTimeline(), stall, e.Target(s.subj))
			if err != nil {
				t.Fatal(err)
			}
			s.patchStack(`{"spec":{"tier":"large"}}`)
			time.Sleep(2500 * time.Millisecond)
			if err := a.End(t.Context()); err != nil {
				t.Fatal(err)
			}
			s.settled("large", "stack-initial-value")
			deleted := s.since(from, func(r proxy.Request) bool { return r.Verb == "delete" && r.Name == n.mirror })
			if (len(deleted) > 0) != (bug == stack.BugOrphanMirrorOnRelist) {
				t.Errorf("%d deletes of the mirror under a stale view", len(deleted))
			}
		})
	}
}

// TestBugsAfterMissedEvents drops the Stack's change event, then forces
// a relist of Stacks (the re-watch answered 410 Expired): watch-never-back
// stops watching Stacks for good and never acts on the change; the
// correct mode's informer relists and syncs it.
func TestBugsAfterMissedEvents(t *testing.T) {
	e := env.Require(t)
	for _, bug := range []string{"", stack.BugWatchNeverBack} {
		t.Run("bug="+bug, func(t *testing.T) {
			t.Parallel()
			s := start(t, e, bug)
			s.settled("small", "stack-initial-value")
			target, tl := e.Target(s.subj), chaos.NewTimeline()
			drop, err := chaos.Begin(t.Context(), tl, chaos.DropEvents("stacks.reference.steadystate.dev", proxy.EventMatch{Namespace: s.ns}, 0), target)
			if err != nil {
				t.Fatal(err)
			}
			s.patchStack(`{"spec":{"tier":"large"}}`)
			reftest.Eventually(t, within, "the change's event to be dropped", func() bool {
				return slices.ContainsFunc(s.subj.Proxy(0).Events(), func(ev proxy.Event) bool {
					return !ev.Delivered && ev.Fault != "" && ev.Kind == "Stack" && ev.Name == "steady"
				})
			})
			if err := drop.End(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := chaos.Inject(t.Context(), tl, &chaos.ForcedRelist{Resource: "stacks.reference.steadystate.dev"}, target); err != nil {
				t.Fatal(err)
			}
			if bug == "" {
				s.settled("large", "stack-initial-value")
				return
			}
			time.Sleep(5 * time.Second)
			if st, _ := s.stack(); st.Status.ObservedGeneration == st.Generation {
				t.Error("watch-never-back acted on a change whose event was lost before the relist")
			}
			if !s.subj.LogContains(0, "not watching Stacks any more") {
				t.Error("the watch loop did not end on the 410")
			}
		})
	}
}

// TestBugsOverTime watches settled controllers with nothing changing for
// over 30 s: status-rewrite-every-30s writes its heartbeat once in that
// time, status-flaps turns Ready False and True again every 3 s (never
// True for 2 s running), hang-after-settling no longer acts on a change
// made after 25 s of quiet, and the correct mode writes nothing and acts
// on that change.
func TestBugsOverTime(t *testing.T) {
	e := env.Require(t)
	for _, bug := range []string{"", stack.BugStatusRewriteEvery30s, stack.BugStatusFlaps, stack.BugHangAfterSettling} {
		t.Run("bug="+bug, func(t *testing.T) {
			t.Parallel()
			s := start(t, e, bug)
			if bug == stack.BugStatusFlaps {
				// Ready True, with everything in place, then False.
				s.eventually("the children in place and Ready once", func() bool {
					st, err := s.stack()
					return err == nil && meta.IsStatusConditionTrue(st.Status.Conditions, refv1.TypeReady)
				})
				var ready []bool
				for range 60 {
					st, _ := s.stack()
					ready = append(ready, meta.IsStatusConditionTrue(st.Status.Conditions, refv1.TypeReady))
					time.Sleep(100 * time.Millisecond)
				}
				longest, run, flips := 0, 0, 0
				for i, r := range ready {
					if r {
						run++
						longest = max(longest, run)
					} else {
						run = 0
					}
					if i > 0 && r != ready[i-1] {
						flips++
					}
				}
				if flips < 3 || longest > 10 {
					t.Errorf("Ready over 6 s: %d flips, True for at most %d00 ms running; want a flip every 0.25-2.75 s, never True for 1 s", flips, longest)
				}
				return
			}
			s.settled("small", "stack-initial-value")
			from := time.Now()
			time.Sleep(32 * time.Second)
			writes := s.since(from, func(r proxy.Request) bool { return r.IsWrite() && r.Resource != "events" })
			switch bug {
			case stack.BugStatusRewriteEvery30s:
				if len(writes) != 1 || writes[0].Subresource != "status" {
					t.Errorf("%d writes in 32 s of quiet, want the one status heartbeat", len(writes))
				}
			default:
				if len(writes) > 0 {
					t.Errorf("%d writes in 32 s of quiet, the first %s %s", len(writes), writes[0].Verb, writes[0].Resource)
				}
			}
			s.patchStack(`{"spec":{"tier":"large"}}`)
			if bug == stack.BugHangAfterSettling {
				time.Sleep(5 * time.Second)
				if cm, _ := s.configMap(s.ns, namesIn(s.ns).config); cm.Data["tier"] != "small" {
					t.Errorf("hang-after-settling acted on a change after 25 s of quiet")
				}
				if exited, err := s.subj.Exited(); exited {
					t.Errorf("the hung process exited: %v", err)
				}
				return
			}
			s.settled("large", "stack-initial-value")
		})
	}
}
