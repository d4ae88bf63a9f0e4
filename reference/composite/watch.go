package composite

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// claimWatch is skip-changes-on-relist's source of Claims: a watch loop
// written by hand instead of an informer. It lists the Claims, hands each
// to the controller, and watches from the list's resourceVersion, handing
// on the object of every event; when the watch ends (cut, or answered 410
// Expired), it lists again and watches from there.
//
// The mistake it models is an edge-triggered controller's: it acts on the
// changes its watch events show, and takes a relist as the state it has
// already handled. A list after the first hands nothing on, so a change
// whose event never came (dropped, or written between the watch's end and
// the relist) is never acted on. An informer compares each relisted object
// with its cache and sends the difference as an update; this loop throws
// the difference away.
type claimWatch struct {
	c      client.WithWatch
	ns     string
	events chan<- event.GenericEvent
}

// Start runs the loop until ctx ends.
func (w *claimWatch) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("claim-watch")
	retry := func() {
		select {
		case <-ctx.Done():
		case <-time.After(requeue):
		}
	}
	first := true
	for ctx.Err() == nil {
		var list refv1.ClaimList
		if err := w.c.List(ctx, &list, client.InNamespace(w.ns)); err != nil {
			log.Error(err, "list Claims")
			retry()
			continue
		}
		if first {
			for i := range list.Items {
				w.emit(ctx, &list.Items[i])
			}
			first = false
		}
		// The bug: a later list is the state already handled, and
		// nothing of it is handed on.
		wi, err := w.c.Watch(ctx, &refv1.ClaimList{}, client.InNamespace(w.ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
		if err != nil {
			log.Error(err, "watch Claims")
			retry()
			continue
		}
		w.follow(ctx, wi)
	}
	return nil
}

// follow hands on the object of each event of wi until it ends or
// carries an error.
func (w *claimWatch) follow(ctx context.Context, wi watch.Interface) {
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		if ev.Type == watch.Error {
			ctrl.LoggerFrom(ctx).WithName("claim-watch").Info("the watch of Claims ended; listing again", "status", ev.Object)
			return
		}
		if c, ok := ev.Object.(*refv1.Claim); ok {
			w.emit(ctx, c)
		}
	}
}

func (w *claimWatch) emit(ctx context.Context, c *refv1.Claim) {
	select {
	case w.events <- event.GenericEvent{Object: c}:
	case <-ctx.Done():
	}
}
