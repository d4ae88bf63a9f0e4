package chaos

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// Registry lists the faults an exploratory run may choose from.
type Registry []Fault

// Available splits the registry into the faults that can act on t and the
// reasons the others cannot.
func (r Registry) Available(t Target) (ok []Fault, skipped map[string]error) {
	skipped = map[string]error{}
	for _, f := range r {
		if err := f.Available(t); err != nil {
			skipped[f.Name()] = err
			continue
		}
		ok = append(ok, f)
	}
	return ok, skipped
}

// Picker chooses faults and delays from a seed, so a run can be replayed.
type Picker struct {
	seed uint64
	rng  *rand.Rand
}

// NewPicker seeds a picker; seed 0 picks a seed from the clock. Print
// Seed() so the run can be replayed.
func NewPicker(seed uint64) *Picker {
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	return &Picker{seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// SeedFromEnv is CHAOS_SEED, or 0 (a fresh seed) when it is unset. A value
// that is not a number is an error naming the variable.
func SeedFromEnv() (uint64, error) {
	v := os.Getenv("CHAOS_SEED")
	if v == "" {
		return 0, nil
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("CHAOS_SEED=%q is not a seed: use the number a previous run printed", v)
	}
	return seed, nil
}

// Seed is the seed that replays this picker's choices.
func (p *Picker) Seed() uint64 { return p.seed }

// Pick chooses one available fault, or says why none is.
func (p *Picker) Pick(r Registry, t Target) (Fault, error) {
	ok, skipped := r.Available(t)
	if len(ok) == 0 {
		var reasons []string
		for name, err := range skipped {
			reasons = append(reasons, name+": "+err.Error())
		}
		return nil, errors.New("no fault in the registry is available: " + strings.Join(reasons, "; "))
	}
	return ok[p.rng.IntN(len(ok))], nil
}

// Jitter returns a delay in [0, max), as etcd's robustness tests wait a
// random time before injecting.
func (p *Picker) Jitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return time.Duration(p.rng.Int64N(int64(max)))
}

// String is printed at the start of a run.
func (p *Picker) String() string {
	return fmt.Sprintf("chaos seed %d (replay with CHAOS_SEED=%d)", p.seed, p.seed)
}
