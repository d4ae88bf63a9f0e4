package kindtest

import (
	"context"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster"
)

// Kind is a kind cluster that also loads images into its nodes.
type Kind interface {
	cluster.Provider
	LoadImage(ctx context.Context, image string, args ...string) error
	LoadImageArchive(ctx context.Context, archive string, args ...string) error
}

// New creates a kind cluster named name, configured from the
// environment as a run's is, with its progress in the test's log, and
// deletes it when the test ends. It fails the test when the cluster does
// not start.
func New(ctx context.Context, t testing.TB, name string) Kind {
	t.Helper()
	o := cluster.ConfigFromEnv().Kind
	o.Name, o.Progress = name, testLog{t}
	p, err := cluster.New(cluster.Config{Provider: cluster.Kind, Kind: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Destroy(context.Background()); err != nil {
			t.Errorf("delete the kind cluster: %v", err)
		}
	})
	if _, err := p.Create(ctx); err != nil {
		t.Fatal(err)
	}
	k, ok := p.(Kind)
	if !ok {
		t.Fatalf("the kind provider (%T) does not load images", p)
	}
	return k
}

// testLog writes each line of progress to the test's log.
type testLog struct{ t testing.TB }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
