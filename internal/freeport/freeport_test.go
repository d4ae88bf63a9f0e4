package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestPickRange(t *testing.T) {
	for _, c := range []struct {
		text     string
		from, to int
		below    bool
	}{
		{"32768\t60999\n", lowest, 32768, true},
		{"1024 65535", 0, 0, false},  // no room below
		{"20500 60999", 0, 0, false}, // under a thousand
		{"", 0, 0, false},            // not Linux, or not readable
		{"x 60999", 0, 0, false},
	} {
		from, to, below := pickRange(c.text)
		if from != c.from || to != c.to || below != c.below {
			t.Errorf("pickRange(%q) = %d, %d, %v, want %d, %d, %v", c.text, from, to, below, c.from, c.to, c.below)
		}
	}
}

// TestPickIsBelowTheEphemeralRange checks that the ports are distinct,
// bindable, and on this machine below the range the kernel hands out as
// connections' source ports.
func TestPickIsBelowTheEphemeralRange(t *testing.T) {
	got, err := Pick(20)
	if err != nil {
		t.Fatal(err)
	}
	_, to, below := pickRange(readRange())
	seen := map[int]bool{}
	for _, p := range got {
		if seen[p] {
			t.Errorf("port %d given twice in %v", p, got)
		}
		seen[p] = true
		if below && (p < lowest || p >= to) {
			t.Errorf("port %d is not in [%d, %d), below the ephemeral range %q", p, lowest, to, readRange())
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Errorf("port %d: %v", p, err)
			continue
		}
		l.Close()
	}
}
