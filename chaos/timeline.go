package chaos

import (
	"encoding/json"
	"os"
	"slices"
	"sync"
	"time"
)

// Timeline is the shared, ordered record of injected faults. Times carry
// Go's monotonic clock; Offset places any of them against the timeline's
// base, so fault records, proxy logs and watch histories line up.
type Timeline struct {
	base     time.Time
	mu       sync.Mutex
	all      []Injection
	observer func(inj Injection, active bool)
}

// NewTimeline starts a timeline now.
func NewTimeline() *Timeline { return &Timeline{base: time.Now()} }

// Base is the timeline's zero.
func (tl *Timeline) Base() time.Time { return tl.base }

// Offset is t measured from the base.
func (tl *Timeline) Offset(t time.Time) time.Duration { return t.Sub(tl.base) }

// Observe has fn told of each fault as it starts (active) and as it is
// recorded (not active), for progress output. Call it before the first
// injection.
func (tl *Timeline) Observe(fn func(inj Injection, active bool)) { tl.observer = fn }

// started tells the observer that fault is being injected.
func (tl *Timeline) started(fault string) {
	if tl != nil && tl.observer != nil {
		tl.observer(Injection{Fault: fault, Start: time.Now()}, true)
	}
}

// Add records an injection. A nil timeline records nothing.
func (tl *Timeline) Add(inj Injection) {
	if tl == nil {
		return
	}
	tl.mu.Lock()
	tl.all = append(tl.all, inj)
	tl.mu.Unlock()
	if tl.observer != nil {
		tl.observer(inj, false)
	}
}

// Injections returns the records ordered by start.
func (tl *Timeline) Injections() []Injection {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	out := slices.Clone(tl.all)
	slices.SortStableFunc(out, func(a, b Injection) int { return a.Start.Compare(b.Start) })
	return out
}

// entry is an injection as written to an artifact, with offsets.
type entry struct {
	Injection
	StartOffset string `json:"startOffset"`
	EndOffset   string `json:"endOffset"`
}

// WriteFile saves the timeline as JSON for the failure artifacts.
func (tl *Timeline) WriteFile(path string) error {
	var entries []entry
	for _, inj := range tl.Injections() {
		entries = append(entries, entry{inj, tl.Offset(inj.Start).String(), tl.Offset(inj.End).String()})
	}
	data, err := json.MarshalIndent(map[string]any{"base": tl.base, "injections": entries}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
