package testenv

import (
	"fmt"
	"strconv"
	"strings"
)

// Part is the share of a suite's specs one process runs when a run splits
// the suite across processes side by side (make e2e splits its long
// suite so): part K of N. The zero Part is the whole suite.
type Part struct{ K, N int }

// PartFlag is the flag that names a Part: -steadystate.part=K/N.
const PartFlag = "steadystate.part"

// String is the part as the flag takes it, K/N ("" for the whole suite).
func (p Part) String() string {
	if p.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.K, p.N)
}

// Set parses K/N, 1 <= K <= N (a flag.Value).
func (p *Part) Set(s string) error {
	k, n, ok := strings.Cut(s, "/")
	kk, err1 := strconv.Atoi(k)
	nn, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || kk < 1 || kk > nn {
		return fmt.Errorf("%q is no part: want K/N with 1 <= K <= N, e.g. 1/2", s)
	}
	p.K, p.N = kk, nn
	return nil
}

// Deal returns a function to call once for each spec the parts share, in
// the order they are declared: it says whether this part runs that spec.
// The specs are dealt in turn (the first to part 1, the second to part 2,
// ...); the whole suite runs them all.
func (p Part) Deal() func() bool {
	next := 0
	return func() bool {
		mine := p.N <= 1 || next%p.N == p.K-1
		next++
		return mine
	}
}
