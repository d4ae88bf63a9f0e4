package testenv

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// EditFinalizers rewrites the finalizers of object name through client
// with change, retrying on conflicts; it writes nothing when change
// leaves them as they are. The harness holds objects with finalizers of
// its own (a foreground deletion held up, an object deleted while another
// party holds it) and lets them go the same way.
func EditFinalizers(ctx context.Context, client dynamic.ResourceInterface, name string, change func([]string) []string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		before := obj.GetFinalizers()
		after := change(slices.Clone(before))
		if slices.Equal(before, after) {
			return nil
		}
		obj.SetFinalizers(after)
		_, err = client.Update(ctx, obj, metav1.UpdateOptions{})
		return err
	})
}

// WithFinalizer adds finalizer f to a list that lacks it.
func WithFinalizer(f string) func([]string) []string {
	return func(fins []string) []string {
		if slices.Contains(fins, f) {
			return fins
		}
		return append(fins, f)
	}
}

// WithoutFinalizer removes finalizer f from a list.
func WithoutFinalizer(f string) func([]string) []string {
	return func(fins []string) []string {
		return slices.DeleteFunc(fins, func(s string) bool { return s == f })
	}
}
