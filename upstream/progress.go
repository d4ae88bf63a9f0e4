package upstream

import (
	"fmt"
	"io"
	"time"
)

// progress prints one release's steps with the time since it began.
type progress struct {
	w      io.Writer
	prefix string
	start  time.Time
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

func (p *progress) say(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, "%s: %s (%s)\n", p.prefix, fmt.Sprintf(format, args...), p.elapsed())
	}
}

// heartbeat says every 30s that a long step is still running, until the
// returned stop is called.
func (p *progress) heartbeat(what string) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.say("%s still running", what)
			}
		}
	}()
	return func() { close(done) }
}
