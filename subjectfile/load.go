package subjectfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// Error is one problem with a subject file: the subject, the field (a
// dotted path) and what was expected there.
type Error struct {
	File, Subject, Field, Problem, Expected string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("subject file")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	if e.Subject != "" {
		fmt.Fprintf(&b, " (subject %q)", e.Subject)
	}
	fmt.Fprintf(&b, ": %s: %s", e.Field, e.Problem)
	if e.Expected != "" {
		b.WriteString("; expected " + e.Expected)
	}
	return b.String()
}

// Load reads and validates the subject file at path.
func Load(path string, o Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		hint := "a subject file (SUBJECT_FILE, or conform --subject) is a YAML file; see fixtures/subjects for examples"
		if !filepath.IsAbs(path) {
			hint += "; a relative path is read from each suite's own folder: give an absolute path (make e2e makes it absolute)"
		}
		return nil, fmt.Errorf("subject file: %w (%s)", err, hint)
	}
	return Parse(data, path, o)
}

// Parse decodes and validates a subject file; path is only for messages
// and for resolving manifests.
func Parse(data []byte, path string, o Options) (*File, error) {
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, &Error{File: path, Field: "(file)", Problem: "not YAML: " + err.Error(), Expected: "a YAML document with apiVersion " + APIVersion}
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil || generic == nil {
		return nil, &Error{File: path, Field: "(file)", Problem: "not a YAML mapping", Expected: "a YAML document with apiVersion " + APIVersion}
	}
	name, _ := generic["name"].(string)
	if former, err := formerCapability(generic); err != nil {
		return nil, &Error{File: path, Subject: name, Field: "capabilities." + renamed.FormerCapability, Problem: err.Error(), Expected: "capabilities." + renamed.ReconcileCapability + " alone"}
	} else if former {
		if raw, err = json.Marshal(generic); err != nil {
			return nil, &Error{File: path, Subject: name, Field: "(file)", Problem: err.Error()}
		}
	}
	var problems []error
	for _, p := range shape(generic, reflect.TypeFor[File](), "") {
		p.File, p.Subject = path, name
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	f := &File{Path: path, options: o}
	if err := json.Unmarshal(raw, f); err != nil { // shape checked every field already
		return nil, &Error{File: path, Subject: name, Field: "(file)", Problem: err.Error()}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

var durationType = reflect.TypeFor[Duration]()

// shape checks a decoded JSON value against the Go type it will be read
// into: unknown fields, wrong kinds and bad durations, each with its path.
func shape(v any, t reflect.Type, path string) []*Error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return nil
	}
	wrong := func(expected string) []*Error {
		return []*Error{{Field: path, Problem: mismatch(v), Expected: expected}}
	}
	switch {
	case t == durationType:
		s, ok := v.(string)
		if !ok {
			return wrong("a duration such as \"30s\"")
		}
		if _, err := time.ParseDuration(s); err != nil {
			return []*Error{{Field: path, Problem: fmt.Sprintf("%q is not a duration", s), Expected: "a duration such as \"30s\""}}
		}
		return nil
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong("a mapping")
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
			}
		}
		var out []*Error
		for k, val := range m {
			ft, ok := fields[k]
			if !ok {
				out = append(out, &Error{Field: join(path, k), Problem: "unknown field", Expected: "one of " + strings.Join(slices.Sorted(maps.Keys(fields)), ", ")})
				continue
			}
			out = append(out, shape(val, ft, join(path, k))...)
		}
		return out
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Interface:
		if _, ok := v.(map[string]any); !ok {
			return wrong("a mapping")
		}
	case t.Kind() == reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return wrong("a mapping of strings")
		}
		var out []*Error
		for k, val := range m {
			out = append(out, shape(val, t.Elem(), join(path, k))...)
		}
		return out
	case t.Kind() == reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return wrong("a list")
		}
		var out []*Error
		for i, val := range l {
			out = append(out, shape(val, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case t.Kind() == reflect.String:
		if _, ok := v.(string); !ok {
			return wrong("a string")
		}
	case t.Kind() == reflect.Int:
		if n, ok := v.(float64); !ok || n != float64(int(n)) {
			return wrong("a whole number")
		}
	}
	return nil
}

// formerCapability moves a capability bound under its former name,
// capabilities.steadyState (until 2026-12-01), to its current one,
// capabilities.reconciledObjects, and reports whether it did; a file that
// binds both is refused.
func formerCapability(file map[string]any) (bool, error) {
	caps, _ := file["capabilities"].(map[string]any)
	former, ok := caps[renamed.FormerCapability]
	if !ok {
		return false, nil
	}
	if _, both := caps[renamed.ReconcileCapability]; both {
		return false, fmt.Errorf("binds both %s and %s, its former name", renamed.ReconcileCapability, renamed.FormerCapability)
	}
	delete(caps, renamed.FormerCapability)
	caps[renamed.ReconcileCapability] = former
	return true, nil
}
