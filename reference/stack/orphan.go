package stack

import (
	"context"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// orphanMirror is orphan-mirror-on-relist's check, made first in every
// pass (its Stack read fresh, and polled): the mirror records the Stack
// generation it was applied from, and a mirror that records a generation
// the Stack has not reached must be left over from an earlier Stack of
// the same name (a new Stack's generation starts at 1 again), so it is
// deleted, once that has looked so for a short grace. While it waits, the
// pass goes no further: wait is how long is left of the grace.
//
// The mistake is where it looks for the Stack's generation: the informer
// cache, not the fresh read the mirror was applied from. While the cache
// is behind (a stalled watch, a lost event before a relist), the Stack's
// own mirror looks newer than the Stack, and is deleted as an orphan;
// the next pass applies it again (a create), and the check deletes it
// again, until the cache catches up. The grace outlasts the cache's lag
// in a healthy run (milliseconds), not a stall.
func (r *Reconciler) orphanMirror(ctx context.Context, fresh *refv1.Stack, m *memo) (wait time.Duration, err error) {
	var cached refv1.Stack
	if err := r.Get(ctx, client.ObjectKeyFromObject(fresh), &cached); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	var mirror corev1.ConfigMap
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: fresh.Namespace, Name: MirrorName(fresh)}, &mirror); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	gen, perr := strconv.ParseInt(mirror.Annotations[AnnotationGeneration], 10, 64)
	r.mu.Lock()
	switch {
	case perr != nil || gen <= cached.Generation:
		m.suspectSince = time.Time{}
	case m.suspectSince.IsZero():
		m.suspectSince = time.Now()
		wait = orphanGrace
	default:
		wait = orphanGrace - time.Since(m.suspectSince)
		if wait <= 0 {
			m.suspectSince = time.Time{}
		}
	}
	r.mu.Unlock()
	if perr != nil || gen <= cached.Generation || wait > 0 {
		return wait, nil
	}
	ctrl.LoggerFrom(ctx).Info("deleting a mirror left by an earlier Stack", "configmap", mirror.Name,
		"mirrorGeneration", gen, "stackGeneration", cached.Generation)
	return 0, client.IgnoreNotFound(r.Delete(ctx, &mirror, client.Preconditions{UID: &mirror.UID}))
}
