package stack

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

// stackWatch is watch-never-back's source of Stacks: a watch loop written
// by hand instead of an informer. It lists the Stacks, hands each to the
// controller, and watches from the list's resourceVersion, handing on the
// object of every event. A watch that ends cleanly is opened again from
// the last resourceVersion it saw; one that fails to open is tried again
// a second later.
//
// The mistake it models is a loop that takes an error event for the end
// of the stream: an ERROR event (the 410 Expired a relist would answer)
// ends the loop for good. No Stack event reaches the controller again,
// and nothing else lists Stacks: a change of a Stack is never acted on.
// An informer relists and carries on.
type stackWatch struct {
	c      client.WithWatch
	ns     string
	events chan<- event.GenericEvent
}

// Start runs the loop until ctx ends or the watch carries an error.
func (w *stackWatch) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("stack-watch")
	pause := func() {
		select {
		case <-ctx.Done():
		case <-time.After(requeue):
		}
	}
	rv := ""
	for ctx.Err() == nil && rv == "" {
		var list refv1.StackList
		if err := w.c.List(ctx, &list, client.InNamespace(w.ns)); err != nil {
			log.Error(err, "list Stacks")
			pause()
			continue
		}
		for i := range list.Items {
			w.emit(ctx, &list.Items[i])
		}
		rv = list.ResourceVersion
	}
	for ctx.Err() == nil {
		wi, err := w.c.Watch(ctx, &refv1.StackList{}, client.InNamespace(w.ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
		if err != nil {
			log.Error(err, "watch Stacks")
			pause()
			continue
		}
		var failed bool
		if rv, failed = w.follow(ctx, wi, rv); failed {
			// The bug: the loop ends here, for good.
			log.Info("the watch of Stacks carried an error; not watching Stacks any more")
			return nil
		}
	}
	return nil
}

// follow hands on the object of each event of wi until it ends, and
// returns the last resourceVersion seen and whether the watch ended with
// an error event.
func (w *stackWatch) follow(ctx context.Context, wi watch.Interface, rv string) (string, bool) {
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		if ev.Type == watch.Error {
			return rv, true
		}
		if s, ok := ev.Object.(*refv1.Stack); ok {
			rv = s.ResourceVersion
			w.emit(ctx, s)
		}
	}
	return rv, false
}

func (w *stackWatch) emit(ctx context.Context, s *refv1.Stack) {
	select {
	case w.events <- event.GenericEvent{Object: s}:
	case <-ctx.Done():
	}
}
