package workload

import (
	"testing"
	"time"
)

func TestExpectations(t *testing.T) {
	now := time.Unix(0, 0)
	e := NewExpectations()
	e.now = func() time.Time { return now }
	if ok, _, _ := e.Satisfied("ns/w"); !ok {
		t.Fatal("no expectations must be satisfied")
	}
	e.ExpectCreate("ns/w", "w-a")
	e.ExpectCreate("ns/w", "w-b")
	now = now.Add(3 * time.Second)
	e.ExpectDelete("ns/w", "w-c") // does not restart the clock
	ok, since, dirty := e.Satisfied("ns/w")
	if ok || since != 3*time.Second || len(dirty) != 3 {
		t.Fatalf("Satisfied = %v, %s, %v", ok, since, dirty)
	}
	e.ObserveCreate("ns/w", "w-a")
	e.ObserveCreate("ns/w", "w-b")
	e.ObserveDelete("ns/w", "w-c")
	if ok, _, _ := e.Satisfied("ns/w"); !ok {
		t.Fatal("all observed, still unsatisfied")
	}
	now = now.Add(time.Minute)
	e.ExpectCreate("ns/w", "w-d") // a new round starts a new clock
	if _, since, _ := e.Satisfied("ns/w"); since != 0 {
		t.Errorf("a new round of expectations carried an old clock: %s", since)
	}
	e.Delete("ns/w")
	if ok, _, _ := e.Satisfied("ns/w"); !ok {
		t.Error("Delete left expectations")
	}
}
