package oracle

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/steadystate-dev/steadystate/internal/jsonl"
)

// DefaultWindow is how many events a spooled history keeps in memory
// (twice that at most, between two writes to its spool).
const DefaultWindow = 4096

// spool is the file a history appends its older events to, as
// EventRecords one a line, while its memory keeps the newest and the
// state after the spooled ones.
type spool struct {
	*jsonl.File
	window int
	// base is the state after every spooled event, baseAt the time of
	// the last of them, count how many there are.
	base   State
	baseAt time.Time
	count  int
}

func newSpool(path string, window int) (*spool, error) {
	f, err := jsonl.Create(path)
	if err != nil {
		return nil, fmt.Errorf("history spool: %w", err)
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &spool{File: f, window: window, base: State{}}, nil
}

// write appends events to the file and folds them into the base state.
func (s *spool) write(events []Event) error {
	for _, e := range events {
		r := EventRecord{At: e.At, Type: e.Type, Key: e.Key}
		if e.Object != nil {
			r.Object = e.Object.Object
		}
		if err := s.Append(r); err != nil {
			return err
		}
		apply(s.base, e)
		s.baseAt, s.count = e.At, s.count+1
	}
	return nil
}

// read calls f with each of the events in the first size bytes of the
// file, in order, until f returns false.
func (s *spool) read(size int64, f func(Event) bool) error {
	err := jsonl.Read(s.Path(), size, func(dec *json.Decoder) (bool, error) {
		var raw struct {
			At     time.Time       `json:"at"`
			Type   string          `json:"type"`
			Key    string          `json:"key"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&raw); err != nil {
			return false, err
		}
		e := Event{At: raw.At, Type: raw.Type, Key: raw.Key}
		if len(raw.Object) > 0 && string(raw.Object) != "null" {
			// Numbers as the API machinery decodes them (see FromRecords).
			var obj map[string]any
			if err := utiljson.Unmarshal(raw.Object, &obj); err != nil {
				return false, err
			}
			e.Object = &unstructured.Unstructured{Object: obj}
		}
		return f(e), nil
	})
	if err != nil {
		return fmt.Errorf("history spool: %w", err)
	}
	return nil
}

// apply changes s by one event.
func apply(s State, e Event) {
	if e.Type == "DELETED" {
		delete(s, e.Key)
	} else {
		s[e.Key] = e.Object
	}
}
