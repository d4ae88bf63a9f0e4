package schedule

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// Error is a schedule file that cannot be used: each problem with the
// file's name and line and what would be valid there.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return "schedule " + e.Problems[0]
	}
	return "schedule " + e.File + ": " + fmt.Sprint(len(e.Problems)) + " problems:\n  " + strings.Join(e.Problems, "\n  ")
}

// Load reads and validates the schedule file at path.
func Load(path string) (Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule: %w (a schedule is the YAML file explore writes next to a finding's artifacts)", err)
	}
	return Parse(data, path)
}

// Parse decodes and validates a schedule; path names it in errors. Fields
// it does not know and values of the wrong type are refused with their
// line, as is every problem Validate finds.
func Parse(data []byte, path string) (Schedule, error) {
	var s Schedule
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, &Error{File: path, Problems: decodeProblems(path, err)}
	}
	s.current()
	problems := s.Validate()
	if len(problems) == 0 {
		return s, nil
	}
	lines := stepLines(data)
	e := &Error{File: path}
	for _, p := range problems {
		where, field := path, p.Field
		if p.Step >= 0 {
			field = fmt.Sprintf("steps[%d].%s", p.Step, p.Field)
			if p.Step < len(lines) {
				where = fmt.Sprintf("%s:%d", path, lines[p.Step])
			}
		}
		msg := fmt.Sprintf("%s: %s: %s", where, field, p.Reason)
		if len(p.Valid) > 0 {
			msg += "; valid: " + strings.Join(p.Valid, ", ")
		}
		e.Problems = append(e.Problems, msg)
	}
	return s, e
}

// decodeProblems turns the YAML decoder's error into lines that name the
// file.
func decodeProblems(path string, err error) []string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		out := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			out[i] = path + ":" + strings.TrimPrefix(e, "line ")
		}
		return out
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if err.Error() == "EOF" {
		msg = "empty: a schedule has format, capability and steps"
	}
	return []string{path + ": " + msg}
}

// stepLines is the line of each step in the file.
func stepLines(data []byte) []int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "steps" {
			var out []int
			for _, step := range m.Content[i+1].Content {
				out = append(out, step.Line)
			}
			return out
		}
	}
	return nil
}

// Marshal writes s as a schedule file, with a header that says how to
// replay it.
func Marshal(s Schedule) ([]byte, error) {
	s.Format = Format
	var b bytes.Buffer
	fmt.Fprintf(&b, "# A steadystate exploration schedule. Replay: steadystate explore --replay FILE\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// current names s's capability and the properties it breaks as they are
// named now: a schedule kept before the reconcile suite and its
// capability were renamed names them steadystate and steadyState.
func (s *Schedule) current() {
	s.Capability = renamed.CurrentCapability(s.Capability)
	if s.Breaks == "" {
		return
	}
	ids := strings.Split(s.Breaks, ",")
	for i, id := range ids {
		ids[i] = renamed.CurrentID(strings.TrimSpace(id))
	}
	s.Breaks = strings.Join(ids, ",")
}
