package external

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestExternalSystem(t *testing.T) {
	srv := httptest.NewServer(NewServer().Handler())
	defer srv.Close()
	c := &Client{Base: srv.URL}
	ctx := t.Context()
	if _, err := c.Observe(ctx, "db", "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("observe missing: %v", err)
	}
	if err := c.Create(ctx, "db", "a"); err != nil {
		t.Fatal(err)
	}
	var exists ErrExists
	if err := c.Create(ctx, "db", "b"); !errors.As(err, &exists) || exists.Owner != "a" {
		t.Fatalf("second create: %v", err)
	}
	if res, err := c.Observe(ctx, "db", "b"); err != nil || res.Owner != "a" {
		t.Fatalf("observe: %+v %v", res, err)
	}
	if err := c.Configure(ctx, Config{FailDeletes: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "db", "a"); err == nil {
		t.Fatal("delete succeeded while deletes fail")
	}
	if err := c.Configure(ctx, Config{DeleteLatency: metav1.Duration{Duration: 50 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Delete(ctx, "db", "a"); err != nil || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("delete: %v after %s", err, time.Since(start))
	}
	ops, err := c.Log(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"observe notfound", "create ok", "create exists", "observe ok", "delete failed", "delete ok"}
	if len(ops) != len(want) {
		t.Fatalf("log = %+v", ops)
	}
	for i, op := range ops {
		if got := op.Op + " " + op.Result; got != want[i] {
			t.Errorf("op %d = %s, want %s", i, got, want[i])
		}
	}
}
