package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Outcome is what one of N concurrent creators got.
type Outcome struct {
	Creator int `json:"creator"`
	// Result is created, conflict (AlreadyExists or Conflict) or error.
	Result string    `json:"result"`
	Error  string    `json:"error,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

// Race starts n creators, holds them at one barrier, releases them at the
// same instant and records each outcome.
func Race(ctx context.Context, n int, create func(ctx context.Context, creator int) error) []Outcome {
	out := make([]Outcome, n)
	barrier := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			ready.Done()
			<-barrier
			o := Outcome{Creator: i, Start: time.Now()}
			err := create(ctx, i)
			o.End = time.Now()
			switch {
			case err == nil:
				o.Result = "created"
			case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
				o.Result, o.Error = "conflict", err.Error()
			default:
				o.Result, o.Error = "error", err.Error()
			}
			out[i] = o
		})
	}
	ready.Wait()
	close(barrier)
	done.Wait()
	return out
}

// ConcurrentCreate creates N copies of Object at once. With the same name
// exactly one should win; Outcomes holds what each creator got.
type ConcurrentCreate struct {
	N        int
	Resource schema.GroupVersionResource
	Object   *unstructured.Unstructured

	Outcomes []Outcome
}

// Name is concurrent-create.
func (f *ConcurrentCreate) Name() string { return "concurrent-create" }

// Available needs a dynamic client, an object and N >= 2.
func (f *ConcurrentCreate) Available(t Target) error {
	switch {
	case t.Dynamic == nil:
		return errors.New("no dynamic cluster client")
	case f.Object == nil:
		return errors.New("concurrent create needs an object")
	case f.N < 2:
		return fmt.Errorf("concurrent create needs at least 2 creators, got %d", f.N)
	}
	return nil
}

// Inject races the creators and counts the results.
func (f *ConcurrentCreate) Inject(ctx context.Context, t Target) (Injection, error) {
	inj := Injection{Target: f.Resource.Resource + "/" + f.Object.GetName(), Start: time.Now()}
	client := t.Dynamic.Resource(f.Resource).Namespace(f.Object.GetNamespace())
	f.Outcomes = Race(ctx, f.N, func(ctx context.Context, _ int) error {
		_, err := client.Create(ctx, f.Object.DeepCopy(), metav1.CreateOptions{})
		return err
	})
	inj.End = time.Now()
	counts := map[string]int{}
	for _, o := range f.Outcomes {
		counts[o.Result]++
	}
	inj.Detail = map[string]string{}
	for k, v := range counts {
		inj.Detail[k] = strconv.Itoa(v)
	}
	return inj, nil
}

// Recover has nothing to undo: what was created stays.
func (*ConcurrentCreate) Recover(context.Context, Target) error { return nil }
