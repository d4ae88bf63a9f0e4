package judge

import (
	"testing"
	"time"
)

func TestValidHolder(t *testing.T) {
	base := time.Unix(100, 0)
	ts := []term{
		{holder: "a", renew: base, until: base.Add(3 * time.Second)},
		{holder: "a", renew: base.Add(2 * time.Second), until: base.Add(5 * time.Second)},
		{holder: "b", renew: base.Add(8 * time.Second), until: base.Add(11 * time.Second)},
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{-time.Second, ""}, {time.Second, "a"}, {4 * time.Second, "a"}, {6 * time.Second, ""}, {9 * time.Second, "b"}, {12 * time.Second, ""},
	} {
		if got := validHolder(ts, base.Add(tc.at)); got != tc.want {
			t.Errorf("holder at %s = %q, want %q", tc.at, got, tc.want)
		}
	}
}
