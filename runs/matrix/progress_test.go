package matrix

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A suite's progress events become lines naming the spec of how many,
// each fault as it starts and ends, with the time since the start; lines
// that are not events are ignored.
func TestFollowPrintsSpecsAndFaults(t *testing.T) {
	events := strings.Join([]string{
		`{"spec":1,"specs":3,"text":"A leader-elected manager fails over"}`,
		`not an event`,
		`{"fault":"leader-failover","active":true}`,
		`{"fault":"leader-failover","target":"mgr-0"}`,
		`{"spec":2,"specs":3,"text":"A leader-elected manager stops writing"}`,
	}, "\n")
	var out bytes.Buffer
	follow(strings.NewReader(events), &out, "leader", time.Now(), false)
	want := []string{
		"leader [0s] spec 1 of 3: A leader-elected manager fails over",
		"leader [0s] fault leader-failover injected",
		"leader [0s] fault leader-failover recovered (on mgr-0)",
		"leader [0s] spec 2 of 3: A leader-elected manager stops writing",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("follow printed\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
}

// With nowhere to print, follow still drains the pipe, so the suite
// never blocks on a full pipe.
func TestFollowDrainsWhenQuiet(t *testing.T) {
	r := strings.NewReader(strings.Repeat(`{"spec":1,"specs":1}`+"\n", 1000))
	follow(r, nil, "leader", time.Now(), false)
	if r.Len() != 0 {
		t.Errorf("%d bytes left unread", r.Len())
	}
}

// An exploration prints its status lines as they are and nothing per
// spec or fault; the suite's peak memory is returned, not printed.
func TestFollowStatusOnly(t *testing.T) {
	events := strings.Join([]string{
		`{"spec":1,"specs":40,"text":"schedule 01 (seed 7)"}`,
		`{"fault":"watch-stall","active":true}`,
		`{"fault":"watch-stall","target":"workload-0"}`,
		`{"status":"schedule 01 (seed 7): passed in 6s | 1 schedules"}`,
		`{"peakMemory":123456789}`,
	}, "\n")
	var out bytes.Buffer
	peak := follow(strings.NewReader(events), &out, "explore", time.Now(), true)
	if got, want := strings.TrimSpace(out.String()), "explore [0s] schedule 01 (seed 7): passed in 6s | 1 schedules"; got != want {
		t.Errorf("follow printed\n%s\nwant\n%s", got, want)
	}
	if peak != 123456789 {
		t.Errorf("follow returned the peak memory %d, want the suite's 123456789", peak)
	}
}
