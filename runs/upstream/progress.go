package upstream

import (
	"fmt"
	"io"
	"time"

	"github.com/steadystate-dev/steadystate/internal/heartbeat"
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
	return heartbeat.Every(30*time.Second, func() { p.say("%s still running", what) })
}
