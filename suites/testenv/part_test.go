package testenv

import (
	"slices"
	"testing"
)

// A part parses from K/N and deals the shared specs in turn; a bad part
// is refused, and the whole suite takes every spec.
func TestPartDealsTheSpecsInTurn(t *testing.T) {
	deal := func(p Part) []int {
		mine := p.Deal()
		var got []int
		for i := range 5 {
			if mine() {
				got = append(got, i)
			}
		}
		return got
	}
	var p Part
	if err := p.Set("2/3"); err != nil || p != (Part{2, 3}) || p.String() != "2/3" {
		t.Fatalf("Set(2/3) = %v, %+v %q", err, p, p.String())
	}
	if got := deal(p); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("part 2/3 runs %v, want [1 4]", got)
	}
	if got := deal(Part{}); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("the whole suite runs %v, want them all", got)
	}
	for _, bad := range []string{"", "2", "0/2", "3/2", "a/b", "1/0"} {
		if err := new(Part).Set(bad); err == nil {
			t.Errorf("Set(%q) took it", bad)
		}
	}
}
