package mover

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// BugStripThenDelete is the pre-#11814 delete order.
const BugStripThenDelete = "strip-then-delete"

// AnnotationDeleteForMove marks a source object deleted by a move.
const AnnotationDeleteForMove = "clusterctl.cluster.x-k8s.io/delete-for-move"

// Options describe one move.
type Options struct {
	From, To  client.Client
	Namespace string
	Bug       string
	// StepDelay is waited between the requests that delete a source object.
	StepDelay time.Duration
	// Log receives one line per step.
	Log io.Writer
}

// Move moves every Cluster of Namespace and returns the names moved.
func Move(ctx context.Context, o Options) ([]string, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	var list refv1.ClusterList
	if err := o.From.List(ctx, &list, client.InNamespace(o.Namespace)); err != nil {
		return nil, fmt.Errorf("list source Clusters: %w", err)
	}
	var names []string
	for i := range list.Items {
		c := &list.Items[i]
		names = append(names, c.Name)
		if err := setPaused(ctx, o.From, c.Namespace, c.Name, true); err != nil {
			return names, fmt.Errorf("pause %s on the source: %w", c.Name, err)
		}
		fmt.Fprintf(o.Log, "paused %s/%s on the source\n", c.Namespace, c.Name)
	}
	for i := range list.Items {
		if err := create(ctx, o.To, &list.Items[i]); err != nil {
			return names, err
		}
		fmt.Fprintf(o.Log, "created %s/%s on the target\n", o.Namespace, list.Items[i].Name)
	}
	for _, name := range names {
		if err := deleteSource(ctx, o, name); err != nil {
			return names, err
		}
		fmt.Fprintf(o.Log, "deleted %s/%s from the source\n", o.Namespace, name)
	}
	for _, name := range names {
		if err := setPaused(ctx, o.To, o.Namespace, name, false); err != nil {
			return names, fmt.Errorf("unpause %s on the target: %w", name, err)
		}
	}
	fmt.Fprintf(o.Log, "moved %d Clusters\n", len(names))
	return names, nil
}

func setPaused(ctx context.Context, c client.Client, ns, name string, paused bool) error {
	patch := fmt.Sprintf(`{"spec":{"paused":%t}}`, paused)
	return c.Patch(ctx, &refv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, client.RawPatch(types.MergePatchType, []byte(patch)))
}

// create copies the object to the target, paused, without server-set
// fields; the target's controller adds its own finalizer once unpaused.
func create(ctx context.Context, to client.Client, src *refv1.Cluster) error {
	obj := &refv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: src.Name, Namespace: src.Namespace, Labels: src.Labels, Annotations: src.Annotations},
		Spec:       src.Spec,
	}
	obj.Spec.Paused = true
	if err := to.Create(ctx, obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("the target already has Cluster %s/%s: delete it there or pick another namespace (%w)", src.Namespace, src.Name, err)
		}
		return fmt.Errorf("create %s on the target: %w", src.Name, err)
	}
	return nil
}

func deleteSource(ctx context.Context, o Options, name string) error {
	var c refv1.Cluster
	if err := o.From.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: name}, &c); err != nil {
		return client.IgnoreNotFound(err)
	}
	if err := o.From.Patch(ctx, &c, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+AnnotationDeleteForMove+`":""}}}`))); err != nil {
		return fmt.Errorf("annotate %s for move: %w", name, err)
	}
	hadFinalizers := len(c.Finalizers) > 0
	steps := []func() error{
		func() error { return client.IgnoreNotFound(o.From.Delete(ctx, &c)) },
		func() error {
			if !hadFinalizers {
				return nil
			}
			return client.IgnoreNotFound(o.From.Patch(ctx, &c, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":[]}}`))))
		},
	}
	if o.Bug == BugStripThenDelete {
		steps[0], steps[1] = steps[1], steps[0]
	}
	if err := steps[0](); err != nil {
		return fmt.Errorf("delete %s from the source: %w", name, err)
	}
	select {
	case <-time.After(o.StepDelay):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := steps[1](); err != nil {
		return fmt.Errorf("delete %s from the source: %w", name, err)
	}
	return nil
}
