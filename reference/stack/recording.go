package stack

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// recording is a client that notes each write it is asked for
// (hang-after-settling's idle clock), then makes it.
type recording struct {
	client.Client
	wrote func()
}

func (c recording) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.wrote()
	return c.Client.Create(ctx, obj, opts...)
}

func (c recording) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.wrote()
	return c.Client.Update(ctx, obj, opts...)
}

func (c recording) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.wrote()
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c recording) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.wrote()
	return c.Client.Apply(ctx, obj, opts...)
}

func (c recording) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.wrote()
	return c.Client.Delete(ctx, obj, opts...)
}

func (c recording) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.wrote()
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

func (c recording) Status() client.SubResourceWriter {
	return recordingStatus{SubResourceWriter: c.Client.Status(), wrote: c.wrote}
}

// recordingStatus is recording's status writer.
type recordingStatus struct {
	client.SubResourceWriter
	wrote func()
}

func (w recordingStatus) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	w.wrote()
	return w.SubResourceWriter.Create(ctx, obj, sub, opts...)
}

func (w recordingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	w.wrote()
	return w.SubResourceWriter.Update(ctx, obj, opts...)
}

func (w recordingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	w.wrote()
	return w.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

func (w recordingStatus) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	w.wrote()
	return w.SubResourceWriter.Apply(ctx, obj, opts...)
}
