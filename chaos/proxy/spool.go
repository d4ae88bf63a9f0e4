package proxy

import (
	"encoding/json"
	"fmt"

	"github.com/steadystate-dev/steadystate/internal/jsonl"
)

// spool is the file a recorder appends its older requests and events to,
// one a line ({"request": ...} or {"event": ...}), so that its memory
// holds only a window of the newest.
type spool struct{ *jsonl.File }

// spoolLine is one line of a spool.
type spoolLine struct {
	Request *Request `json:"request,omitempty"`
	Event   *Event   `json:"event,omitempty"`
}

// createSpool makes (or empties) the spool file at path.
func createSpool(path string) (*spool, error) {
	f, err := jsonl.Create(path)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: the log file (Options.Log): %w", err)
	}
	return &spool{f}, nil
}

func (s *spool) writeRequests(reqs []Request) error {
	for i := range reqs {
		if err := s.Append(spoolLine{Request: &reqs[i]}); err != nil {
			return err
		}
	}
	return nil
}

func (s *spool) writeEvents(events []Event) error {
	for i := range events {
		if err := s.Append(spoolLine{Event: &events[i]}); err != nil {
			return err
		}
	}
	return nil
}

func (s *spool) flush() (int64, error) { return s.Flush() }

func (s *spool) close() error { return s.Close() }

// read reads the first size bytes of the spool back: the requests and
// the events in the order they were spooled.
func (s *spool) read(size int64) (reqs []Request, events []Event, err error) {
	err = jsonl.Read(s.Path(), size, func(dec *json.Decoder) (bool, error) {
		var line spoolLine
		if err := dec.Decode(&line); err != nil {
			return false, err
		}
		if line.Request != nil {
			reqs = append(reqs, *line.Request)
		}
		if line.Event != nil {
			events = append(events, *line.Event)
		}
		return true, nil
	})
	if err != nil {
		err = fmt.Errorf("fault proxy: read the log file back: %w", err)
	}
	return reqs, events, err
}
