package judge

import (
	"encoding"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// A Fact is one thing a suite tells the judges about its scenario: its
// name in the evidence and the Go type it is written and read as. Set and
// Get are the one codec between the two: the evidence keeps every fact as
// text, which Set writes and Get reads back as
//
//   - a string as it is;
//   - a time.Duration as its String, an int in decimal;
//   - Names joined by commas (none: the empty text);
//   - a type with MarshalText and UnmarshalText (time.Time: RFC 3339) as
//     its text;
//   - anything else as JSON.
//
// The evidence's format (evidence.Format) versions the lot: a fact whose
// type changes how it is written bumps it.
type Fact[T any] struct {
	Name string
}

// A FactWriter records facts: a spec (testenv.Spec) or an evidence
// collector.
type FactWriter interface {
	Fact(name, value string)
}

// Names is a list of names (keys, resources, kinds) a fact holds, written
// joined by commas: no name holds one.
type Names []string

// Set records v as f's value.
func (f Fact[T]) Set(w FactWriter, v T) { w.Fact(f.Name, f.Text(v)) }

// Text is v as f's value in the evidence.
func (f Fact[T]) Text(v T) string {
	switch x := any(v).(type) {
	case string:
		return x
	case time.Duration:
		return x.String()
	case int:
		return strconv.Itoa(x)
	case Names:
		return strings.Join(x, ",")
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			panic(fmt.Sprintf("fact %q: %v", f.Name, err)) // every such type here marshals
		}
		return string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fact %q: %v", f.Name, err)) // facts are plain data
	}
	return string(b)
}

// Has reports whether e records f.
func (f Fact[T]) Has(e *evidence.Evidence) bool {
	_, ok := e.Facts[f.Name]
	return ok
}

// Get reads f from e: an error wrapping evidence.ErrMissing when e does
// not record it, or naming the fact when its text does not parse.
func (f Fact[T]) Get(e *evidence.Evidence) (T, error) {
	raw, err := e.Fact(f.Name)
	if err != nil {
		var zero T
		return zero, err
	}
	return f.Parse(raw)
}

// Lookup is f's value in e and whether e records it; the zero value when
// it does not or when its text does not parse.
func (f Fact[T]) Lookup(e *evidence.Evidence) (T, bool) {
	if !f.Has(e) {
		var zero T
		return zero, false
	}
	v, err := f.Get(e)
	if err != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// Parse reads f's value from its text in the evidence.
func (f Fact[T]) Parse(raw string) (T, error) {
	var v T
	var err error
	switch p := any(&v).(type) {
	case *string:
		*p = raw
	case *time.Duration:
		*p, err = time.ParseDuration(raw)
	case *int:
		*p, err = strconv.Atoi(raw)
	case *Names:
		if raw != "" {
			*p = strings.Split(raw, ",")
		}
	case encoding.TextUnmarshaler:
		err = p.UnmarshalText([]byte(raw))
	default:
		err = json.Unmarshal([]byte(raw), &v)
	}
	if err != nil {
		return v, fmt.Errorf("fact %q: %w", f.Name, err)
	}
	return v, nil
}

// String is f's name.
func (f Fact[T]) String() string { return f.Name }

// Put writes v as f's value into e itself: for tools and tests that
// rewrite evidence (a run records its facts with Set).
func (f Fact[T]) Put(e *evidence.Evidence, v T) {
	if e.Facts == nil {
		e.Facts = map[string]string{}
	}
	e.Facts[f.Name] = f.Text(v)
}
