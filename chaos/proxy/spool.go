package proxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// spool is the file a recorder appends its older requests and events to,
// one JSON object a line ({"request": ...} or {"event": ...}), so that
// its memory holds only a window of the newest.
type spool struct {
	path   string
	f      *os.File
	w      *bufio.Writer
	size   int64 // bytes written through w
	closed bool
}

// spoolLine is one line of a spool.
type spoolLine struct {
	Request *Request `json:"request,omitempty"`
	Event   *Event   `json:"event,omitempty"`
}

// createSpool makes (or empties) the spool file at path.
func createSpool(path string) (*spool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: the log file (Options.Log): %w", err)
	}
	return &spool{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (s *spool) write(line spoolLine) error {
	if s.closed {
		return errors.New("fault proxy: the log file is closed")
	}
	data, err := json.Marshal(line)
	if err != nil {
		return err
	}
	n, err := s.w.Write(append(data, '\n'))
	s.size += int64(n)
	return err
}

func (s *spool) writeRequests(reqs []Request) error {
	for i := range reqs {
		if err := s.write(spoolLine{Request: &reqs[i]}); err != nil {
			return err
		}
	}
	return nil
}

func (s *spool) writeEvents(events []Event) error {
	for i := range events {
		if err := s.write(spoolLine{Event: &events[i]}); err != nil {
			return err
		}
	}
	return nil
}

// flush writes out what is buffered and returns the spool's size.
func (s *spool) flush() (int64, error) {
	if s.closed {
		return s.size, nil
	}
	return s.size, s.w.Flush()
}

// read reads the first size bytes of the spool back: the requests and
// the events in the order they were spooled.
func (s *spool) read(size int64) ([]Request, []Event, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, fmt.Errorf("fault proxy: read the log file back: %w", err)
	}
	defer f.Close()
	var (
		reqs   []Request
		events []Event
	)
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, size), 1<<16))
	for {
		var line spoolLine
		switch err := dec.Decode(&line); {
		case errors.Is(err, io.EOF):
			return reqs, events, nil
		case err != nil:
			return reqs, events, fmt.Errorf("fault proxy: read the log file %s back: %w", s.path, err)
		}
		if line.Request != nil {
			reqs = append(reqs, *line.Request)
		}
		if line.Event != nil {
			events = append(events, *line.Event)
		}
	}
}

// close flushes the spool and closes its file; it can still be read.
func (s *spool) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.w.Flush(), s.f.Close())
}
