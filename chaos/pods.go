package chaos

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// PodDeletion deletes pods that Selector picks in Namespace, with grace
// period Grace (0: at once, as a node loss would), Count of them or a
// Fraction (rounded up). It may run while a watch fault is active: that is
// how a controller misses its own pods' deaths.
type PodDeletion struct {
	Namespace string
	Selector  string
	// Count pods, or Fraction of the matching ones; neither means all.
	Count    int
	Fraction float64
	Grace    int64
	// Names, when set, are the only pods it may take (those that exist).
	Names []string
}

// Name is pod-deletion.
func (f PodDeletion) Name() string { return "pod-deletion" }

// Available needs a namespace and a sane amount.
func (f PodDeletion) Available(t Target) error {
	switch {
	case f.Namespace == "":
		return errors.New("pod deletion needs a namespace")
	case f.Count < 0, f.Fraction < 0, f.Fraction > 1:
		return fmt.Errorf("pod deletion needs count >= 0 and fraction in [0,1], got %d and %g", f.Count, f.Fraction)
	case t.Kube == nil:
		return errors.New("no cluster client")
	}
	return nil
}

// Inject deletes the chosen pods, oldest name first, and lists them.
func (f PodDeletion) Inject(ctx context.Context, t Target) (Injection, error) {
	inj := Injection{Start: time.Now()}
	pods, err := t.Kube.CoreV1().Pods(f.Namespace).List(ctx, metav1.ListOptions{LabelSelector: f.Selector})
	if err != nil {
		return inj, fmt.Errorf("list pods %q in %s: %w", f.Selector, f.Namespace, err)
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && (len(f.Names) == 0 || slices.Contains(f.Names, p.Name)) {
			live = append(live, p)
		}
	}
	slices.SortFunc(live, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	n := len(live)
	switch {
	case f.Count > 0:
		n = min(f.Count, n)
	case f.Fraction > 0:
		n = int(math.Ceil(f.Fraction * float64(n)))
	}
	var deleted []string
	for _, p := range live[:n] {
		err := t.Kube.CoreV1().Pods(f.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(f.Grace)})
		if err != nil && !apierrors.IsNotFound(err) {
			return inj, fmt.Errorf("delete pod %s/%s: %w", f.Namespace, p.Name, err)
		}
		deleted = append(deleted, p.Name)
	}
	inj.End = time.Now()
	inj.Target = f.Namespace + "/" + f.Selector
	inj.Detail = map[string]string{"deleted": strings.Join(deleted, ",")}
	return inj, nil
}

// Recover has nothing to undo.
func (PodDeletion) Recover(context.Context, Target) error { return nil }
