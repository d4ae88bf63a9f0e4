package wiring

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Bugs lists, per reference controller, the seeded bugs it can switch on.
// Each reproduces an upstream bug described in the design's bugs.md.
var Bugs = map[string][]string{
	"workload":  {"expectations-never-expire", "no-expectations"},
	"cluster":   {"finalizer-while-deleting", "cleanup-while-paused"},
	"move":      {"strip-then-delete"},
	"composite": {"deleting-status-not-persisted", "no-blocking-reason", "external-name-reuse"},
	"leader":    {"start-leader-runnables-on-shutdown", "ignore-lost-lease"},
}

// ValidateBug accepts "" (the correct mode) or a bug of controller, and
// otherwise says which bugs are valid and where a misplaced one belongs.
func ValidateBug(controller, bug string) error {
	valid, ok := Bugs[controller]
	if !ok {
		return fmt.Errorf("unknown controller %q", controller)
	}
	if bug == "" || slices.Contains(valid, bug) {
		return nil
	}
	for other, bugs := range Bugs {
		if slices.Contains(bugs, bug) {
			return fmt.Errorf("--bug=%s belongs to refctl %s, not refctl %s; valid here: %s", bug, other, controller, strings.Join(valid, ", "))
		}
	}
	return fmt.Errorf("unknown --bug=%s for refctl %s; valid: %s (or none for the correct mode)", bug, controller, strings.Join(valid, ", "))
}

// Controllers lists the controllers with bugs, sorted.
func Controllers() []string {
	names := make([]string, 0, len(Bugs))
	for n := range Bugs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
