package oracle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// DefaultWindow is how many events a spooled history keeps in memory
// (twice that at most, between two writes to its spool).
const DefaultWindow = 4096

// spool is the file a history appends its older events to, as
// EventRecords one a line, while its memory keeps the newest and the
// state after the spooled ones.
type spool struct {
	path   string
	f      *os.File
	w      *bufio.Writer
	size   int64 // bytes written through w
	window int
	// base is the state after every spooled event, baseAt the time of
	// the last of them, count how many there are.
	base   State
	baseAt time.Time
	count  int
}

func newSpool(path string, window int) (*spool, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("history spool: %w", err)
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &spool{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16), window: window, base: State{}}, nil
}

// write appends events to the file and folds them into the base state.
func (s *spool) write(events []Event) error {
	for _, e := range events {
		r := EventRecord{At: e.At, Type: e.Type, Key: e.Key}
		if e.Object != nil {
			r.Object = e.Object.Object
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		n, err := s.w.Write(append(data, '\n'))
		s.size += int64(n)
		if err != nil {
			return err
		}
		apply(s.base, e)
		s.baseAt, s.count = e.At, s.count+1
	}
	return nil
}

// flush writes out what is buffered and returns the file's size.
func (s *spool) flush() (int64, error) { return s.size, s.w.Flush() }

// read calls f with each of the events in the first size bytes of the
// file, in order, until f returns false.
func (s *spool) read(size int64, f func(Event) bool) error {
	file, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("history spool: %w", err)
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(file, size), 1<<16))
	for {
		var raw struct {
			At     time.Time       `json:"at"`
			Type   string          `json:"type"`
			Key    string          `json:"key"`
			Object json.RawMessage `json:"object"`
		}
		switch err := dec.Decode(&raw); {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("history spool %s: %w", s.path, err)
		}
		e := Event{At: raw.At, Type: raw.Type, Key: raw.Key}
		if len(raw.Object) > 0 && string(raw.Object) != "null" {
			// Numbers as the API machinery decodes them (see FromRecords).
			var obj map[string]any
			if err := utiljson.Unmarshal(raw.Object, &obj); err != nil {
				return fmt.Errorf("history spool %s: %w", s.path, err)
			}
			e.Object = &unstructured.Unstructured{Object: obj}
		}
		if !f(e) {
			return nil
		}
	}
}

func (s *spool) close() error { return errors.Join(s.w.Flush(), s.f.Close()) }

// apply changes s by one event.
func apply(s State, e Event) {
	if e.Type == "DELETED" {
		delete(s, e.Key)
	} else {
		s[e.Key] = e.Object
	}
}
