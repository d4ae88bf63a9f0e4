package workload_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/internal/victim"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/reftest"
	"github.com/steadystate-dev/steadystate/reference/workload"
)

var env reftest.Env

func TestMain(m *testing.M) { reftest.Main(m, "workload-test", &env) }

const timeout = 2 * time.Second // --expectation-timeout in these tests

type scenario struct {
	t  *testing.T
	e  *reftest.Env
	ns string
	w  *refv1.Workload
}

func newScenario(t *testing.T, e *reftest.Env, replicas int32) *scenario {
	return newScenarioIn(t, e, e.Cluster.Namespace(t, "workload"), replicas)
}

func newScenarioIn(t *testing.T, e *reftest.Env, ns string, replicas int32) *scenario {
	w := &refv1.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: refv1.WorkloadSpec{Replicas: replicas, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}}},
		}},
	}
	if err := e.Client.Create(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	return &scenario{t: t, e: e, ns: ns, w: w}
}

func (s *scenario) status() int32 {
	var w refv1.Workload
	if err := s.e.Client.Get(context.Background(), client.ObjectKeyFromObject(s.w), &w); err != nil {
		return -1
	}
	return w.Status.Replicas
}

func (s *scenario) livePods() []corev1.Pod {
	var pods corev1.PodList
	if err := s.e.Client.List(context.Background(), &pods, client.InNamespace(s.ns), client.MatchingLabels{workload.LabelWorkload: "web"}); err != nil {
		s.t.Fatal(err)
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live
}

func (s *scenario) scale(n int32) {
	var w refv1.Workload
	if err := s.e.Client.Get(s.t.Context(), client.ObjectKeyFromObject(s.w), &w); err != nil {
		s.t.Fatal(err)
	}
	w.Spec.Replicas = n
	if err := s.e.Client.Update(s.t.Context(), &w); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scenario) waitConverged(n int32, within time.Duration) {
	s.t.Helper()
	reftest.Eventually(s.t, within, fmt.Sprintf("status.replicas == %d with %d live pods", n, n), func() bool {
		return s.status() == n && len(s.livePods()) == int(n)
	})
}

// loseACreate is the lost-events trigger (docs/design.md): with the pod watch stalled, scale
// up by one; delete the new pod (grace 0); cut the watch and answer the
// re-watch with 410, so the relist no longer holds the pod and the
// controller never sees it come or go.
func (s *scenario) loseACreate(target chaos.Target, to int32) {
	s.t.Helper()
	tl := chaos.NewTimeline()
	stall, err := chaos.Begin(s.t.Context(), tl, chaos.Stall("pods", 0), target)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() {
		if err := stall.End(s.t.Context()); err != nil {
			s.t.Error(err)
		}
	}()
	known := map[string]bool{}
	for _, p := range s.livePods() {
		known[p.Name] = true
	}
	s.scale(to)
	var lost string
	reftest.Eventually(s.t, 10*time.Second, "the controller to create a pod", func() bool {
		for _, p := range s.livePods() {
			if !known[p.Name] {
				lost = p.Name
			}
		}
		return lost != ""
	})
	if err := s.e.Cluster.Kube.CoreV1().Pods(s.ns).Delete(s.t.Context(), lost, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		s.t.Fatal(err)
	}
	if _, err := chaos.Inject(s.t.Context(), tl, &chaos.ForcedRelist{Resource: "pods"}, target); err != nil {
		s.t.Fatal(err)
	}
}

// Every run starts a fresh controller: after a 410, client-go's reflector
// relists with exponential backoff (0.8s doubling to 30s, reset only after
// two quiet minutes), so back-to-back forced relists in one process would
// measure that backoff instead of the controller.
func TestCorrectModeRecoversFromALostCreate(t *testing.T) {
	e := env.Require(t)
	for i := range reftest.Repeat() {
		t.Run(fmt.Sprint("run ", i), func(t *testing.T) {
			subj := e.Start(t, "workload", 1, "--expectation-timeout="+timeout.String(), "--leader-elect=false")
			s := newScenario(t, e, 2)
			s.waitConverged(2, 30*time.Second)
			s.loseACreate(e.Target(subj), 3)
			s.waitConverged(3, timeout+15*time.Second)
			s.scale(4)
			s.waitConverged(4, 30*time.Second)
		})
	}
}

func TestExpectationsNeverExpireBlocksForever(t *testing.T) {
	e := env.Require(t)
	const overtime = "Expectation unsatisfied overtime"
	for i := range reftest.Repeat() {
		t.Run(fmt.Sprint("run ", i), func(t *testing.T) {
			subj := e.Start(t, "workload", 1, "--expectation-timeout="+timeout.String(), "--leader-elect=false", "--bug="+workload.BugExpectationsNeverExpire)
			s := newScenario(t, e, 2)
			s.waitConverged(2, 30*time.Second)
			before := subj.CountInLog(0, overtime)
			s.loseACreate(e.Target(subj), 3)
			reftest.Eventually(t, timeout+15*time.Second, "the overtime log line", func() bool { return subj.CountInLog(0, overtime) > before })
			if got := s.status(); got != 2 {
				t.Errorf("status.replicas = %d; the blocked workload should still report 2", got)
			}
			// A later scale change is not acted on either: the reconcile
			// it triggers logs overtime again and returns.
			before = subj.CountInLog(0, overtime)
			s.scale(4)
			reftest.Eventually(t, 15*time.Second, "the next reconcile to give up", func() bool { return subj.CountInLog(0, overtime) > before })
			if n, live := s.status(), len(s.livePods()); n != 2 || live != 2 {
				t.Errorf("after scaling to 4: status %d, %d live pods; the bug keeps both at 2", n, live)
			}
		})
	}
}

// TestLateEventsOvershootWithoutExpectations delays the controller's pod
// ADDED events: acting on a stale cache, no-expectations creates more pods
// than replicas, while the correct mode waits for its expectations.
func TestLateEventsOvershootWithoutExpectations(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", workload.BugNoExpectations}, func(t *testing.T, bug string) {
		subj := e.Start(t, "workload", 1, "--leader-elect=false", "--bug="+bug)
		// Only this run's pods are delayed: a cluster-wide delay
		// would also hold back every other pod in the informer's
		// initial sync (watch-list sends them as ADDED events).
		ns := e.Cluster.Namespace(t, "workload")
		tl := chaos.NewTimeline()
		delay, err := chaos.Begin(t.Context(), tl, chaos.DelayEvents("pods", proxy.EventMatch{Types: []string{"ADDED"}, Namespace: ns}, 300*time.Millisecond, 0), e.Target(subj))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := delay.End(t.Context()); err != nil {
				t.Error(err)
			}
		}()
		history := startHistory(t, e, ns)
		s := newScenarioIn(t, e, ns, 3)
		// The controller has caught up once its status counts
		// every live pod and three are left.
		reftest.Eventually(t, 30*time.Second, "the workload to settle at 3 pods", func() bool {
			return s.status() == 3 && len(s.livePods()) == 3
		})
		peak := peakLivePods(history.Seen())
		if bug == "" && peak != 3 {
			t.Errorf("correct mode had %d live pods at once for 3 replicas", peak)
		}
		if bug != "" && peak <= 3 {
			t.Errorf("no-expectations peaked at %d pods for 3 replicas; late events should make it overshoot", peak)
		}
	})
}

// startHistory records the pods of ns as an admin watch sees them, in order.
func startHistory(t *testing.T, e *reftest.Env, ns string) *victim.Informer {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	inf, stop, ok := victim.Start(ctx, e.Cluster.REST, ns, victim.Pods)
	if !ok {
		t.Fatal("the history watch did not sync")
	}
	t.Cleanup(stop)
	return inf
}

// peakLivePods is the most pods alive at once in an ordered event history.
// Pods here are never scheduled, so a delete removes them at once.
func peakLivePods(seen []string) int {
	live, peak := 0, 0
	for _, e := range seen {
		switch {
		case strings.HasPrefix(e, "ADD "):
			live++
		case strings.HasPrefix(e, "DELETE "):
			live--
		}
		peak = max(peak, live)
	}
	return peak
}
