package matrix

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/internal/heartbeat"
	"github.com/steadystate-dev/steadystate/internal/progress"
)

// heartbeatEvery is how often a running spec is reported when nothing
// else happens.
const heartbeatEvery = 30 * time.Second

// follow reads a suite's progress events from r until it closes and, when
// out is set, prints them: each spec as it starts (N of M), each fault as
// it starts and ends, and every heartbeat the spec still running with the
// faults active, each line with the time since start. A suite's status
// lines are printed as they are; statusOnly prints nothing else but the
// heartbeat (exploration: a line per schedule, not per fault).
func follow(r io.Reader, out io.Writer, suite string, start time.Time, statusOnly bool) (peakMemory int64) {
	if out == nil {
		out = io.Discard
	}
	var (
		mu     sync.Mutex
		spec   string
		active []string
	)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, "%s [%s] %s\n", suite, time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
	}
	stop := heartbeat.Every(heartbeatEvery, func() {
		mu.Lock()
		defer mu.Unlock()
		if spec != "" {
			faults := "none"
			if len(active) > 0 {
				faults = strings.Join(active, ", ")
			}
			say("%s: still running; faults active: %s", spec, faults)
		}
	})
	defer stop()
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var e progress.Event
		if json.Unmarshal(lines.Bytes(), &e) != nil {
			continue
		}
		mu.Lock()
		switch {
		case e.PeakMemory > 0:
			peakMemory = e.PeakMemory
		case e.Status != "":
			say("%s", e.Status)
		case e.Spec > 0 && statusOnly:
			spec, active = e.Text, nil
		case statusOnly:
			if e.Active {
				active = append(active, e.Fault)
			} else if i := slices.Index(active, e.Fault); i >= 0 {
				active = slices.Delete(active, i, i+1)
			}
		case e.Spec > 0:
			spec = fmt.Sprintf("spec %d of %d", e.Spec, e.Specs)
			active = nil
			say("%s: %s", spec, e.Text)
		case e.Fault != "" && e.Active:
			active = append(active, e.Fault)
			say("fault %s injected", e.Fault)
		case e.Fault != "":
			if i := slices.Index(active, e.Fault); i >= 0 {
				active = slices.Delete(active, i, i+1)
			}
			on := ""
			if e.Target != "" {
				on = " (on " + e.Target + ")"
			}
			say("fault %s recovered%s", e.Fault, on)
		}
		mu.Unlock()
	}
	return peakMemory
}
