package subjectfile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// RedactedValue stands for a value a subject file's copy, or a change's
// description, does not show.
const RedactedValue = "<redacted>"

// minSwept is the shortest value of a Secret that is looked for elsewhere
// in the file: a shorter one would match unrelated text.
const minSwept = 4

// RedactedCopy is the subject file at path as a run may keep it (in a
// results bundle): see Redact.
func RedactedCopy(path string, o Options) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Redact(data, path, o)
}

// RedactedCopy is the file, as read from its Path, as a run may keep it.
func (f *File) RedactedCopy() ([]byte, error) { return RedactedCopy(f.Path, f.options) }

// Redact is a subject file (data, read from path, which its relative
// manifest paths are taken from) with no secret left in it, still a
// subject file of the same fields, each value it hides the string
// RedactedValue:
//   - in every manifest of kind Secret it holds (an object of the
//     steady-state binding or any other template), every value of data
//     and stringData, and kubectl's last-applied annotation;
//   - in every patch of the steady-state changes, every value it sets
//     when the patched object is a Secret, and every value below a data
//     or stringData field whatever the kind;
//   - every run.env and run.pod.env value whose name looks secret
//     (oracle.SecretName);
//   - every other value, and every comment, that holds a value of a
//     Secret the file names (inline, patched, or in a manifest file of
//     capabilities.reconciledObjects.objects or run.manifests, which are read
//     for it and not copied) of minSwept characters or more, plain or in
//     base64: an environment variable given a Secret's value, say.
//
// The comments and the order of the fields are kept. Only a file that is
// not YAML is an error: a manifest file that cannot be read is left out
// of the values looked for (the run that reads it says why).
func Redact(data []byte, path string, o Options) ([]byte, error) {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{File: path, Field: "(file)", Problem: "not YAML: " + err.Error()}
		}
		docs = append(docs, &doc)
	}
	r := redactor{secrets: map[string]bool{}}
	f := &File{Path: path, options: o}
	for _, doc := range docs {
		r.secretsIn(doc)
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		r.env(get(get(root, "run"), "env"))
		r.env(get(get(get(root, "run"), "pod"), "env"))
		steady := get(get(root, "capabilities"), renamed.ReconcileCapability)
		if steady == nil {
			steady = get(get(root, "capabilities"), renamed.FormerCapability)
		}
		if changes := get(steady, "changes"); changes != nil && changes.Kind == yaml.SequenceNode {
			for _, c := range changes.Content {
				r.patch(get(c, "patch"))
			}
		}
		// The manifest files the file names: their Secrets' values are
		// looked for in the file.
		var files []string
		if objects := get(steady, "objects"); objects != nil && objects.Kind == yaml.SequenceNode {
			for _, e := range objects.Content {
				if e.Kind == yaml.ScalarNode {
					files = append(files, e.Value)
				}
			}
		}
		if ms := get(get(root, "run"), "manifests"); ms != nil && ms.Kind == yaml.SequenceNode {
			for _, e := range ms.Content {
				if e.Kind == yaml.ScalarNode {
					files = append(files, e.Value)
				}
			}
		}
		for _, entry := range files {
			r.secretsInFiles(f, entry)
		}
	}
	for _, doc := range docs {
		r.sweep(doc)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	for _, doc := range docs {
		if err := enc.Encode(doc); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// redactor gathers the values of the Secrets a file names, hiding them
// where it finds them.
type redactor struct {
	secrets map[string]bool
}

// keep remembers a Secret's value, and its base64 form, to look for it
// elsewhere.
func (r *redactor) keep(v string) {
	if len(v) < minSwept {
		return
	}
	r.secrets[v] = true
	r.secrets[base64.StdEncoding.EncodeToString([]byte(v))] = true
}

// secretsIn hides the values of every Secret manifest below n, keeping
// them.
func (r *redactor) secretsIn(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode && isSecret(n) {
		for _, field := range []string{"data", "stringData"} {
			values := get(n, field)
			if values == nil || values.Kind != yaml.MappingNode {
				continue
			}
			for i := 1; i < len(values.Content); i += 2 {
				v := resolve(values.Content[i])
				if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
					r.keep(v.Value)
					if field == "data" {
						if raw, err := base64.StdEncoding.DecodeString(v.Value); err == nil {
							r.keep(string(raw))
						}
					}
				}
				hide(values.Content[i])
			}
		}
		if a := get(get(n, "metadata"), "annotations"); a != nil {
			if v := get(a, lastApplied); v != nil {
				hide(v)
			}
		}
	}
	for _, c := range n.Content {
		r.secretsIn(c)
	}
}

// lastApplied is the annotation kubectl keeps a whole applied object in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// isSecret says whether a mapping is a manifest of kind Secret.
func isSecret(n *yaml.Node) bool {
	k := get(n, "kind")
	return k != nil && k.Kind == yaml.ScalarNode && k.Value == "Secret"
}

// env hides the values of a mapping of environment variables whose names
// look secret.
func (r *redactor) env(n *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if oracle.SecretName(n.Content[i].Value) {
			hide(n.Content[i+1])
		}
	}
}

// patch hides what a change's patch sets: every value of a Secret's,
// those below data and stringData of any other kind's.
func (r *redactor) patch(p *yaml.Node) {
	if p == nil {
		return
	}
	kind := get(get(p, "object"), "kind")
	secret := kind != nil && kind.Value == "Secret"
	var walk func(n *yaml.Node, under bool)
	walk = func(n *yaml.Node, under bool) {
		n = resolve(n)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				walk(n.Content[i+1], under || k == "data" || k == "stringData")
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, under)
			}
		case yaml.ScalarNode:
			if under && n.Tag != "!!null" {
				if secret {
					r.keep(n.Value)
					if raw, err := base64.StdEncoding.DecodeString(n.Value); err == nil {
						r.keep(string(raw))
					}
				}
				hide(n)
			}
		}
	}
	if m := get(p, "merge"); m != nil {
		walk(m, secret)
	}
}

// secretsInFiles keeps the values of the Secrets in the manifest files
// entry (a path or glob of the file) names.
func (r *redactor) secretsInFiles(f *File, entry string) {
	files, err := f.manifest(entry)
	if err != nil {
		return
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		text, err := Expand(string(data), sampleVars)
		if err != nil {
			continue
		}
		ms, err := documents([]byte(text))
		if err != nil {
			continue
		}
		for _, m := range ms {
			if m["kind"] != "Secret" {
				continue
			}
			for _, field := range []string{"data", "stringData"} {
				values, _ := m[field].(map[string]any)
				for _, v := range values {
					s, ok := v.(string)
					if !ok {
						continue
					}
					r.keep(s)
					if field == "data" {
						if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
							r.keep(string(raw))
						}
					}
				}
			}
		}
	}
}

// sweep hides every scalar and comment below n holding a kept value.
func (r *redactor) sweep(n *yaml.Node) {
	if n == nil || len(r.secrets) == 0 {
		return
	}
	for _, c := range []*string{&n.HeadComment, &n.LineComment, &n.FootComment} {
		if r.holds(*c) {
			*c = "# " + RedactedValue
		}
	}
	if n.Kind == yaml.ScalarNode && r.holds(n.Value) {
		hide(n)
	}
	for _, c := range n.Content {
		r.sweep(c)
	}
}

func (r *redactor) holds(s string) bool {
	for v := range r.secrets {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// hide makes n the string RedactedValue, keeping its anchor (an alias of
// it then reads RedactedValue too) and its comments; a null stays null:
// it sets nothing.
func hide(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: RedactedValue, Style: yaml.DoubleQuotedStyle, Anchor: n.Anchor,
		HeadComment: n.HeadComment, LineComment: n.LineComment, FootComment: n.FootComment, Line: n.Line, Column: n.Column}
}

// get is the value of key in mapping n (nil when n is not a mapping or
// has no such key), aliases followed.
func get(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// redactPatch is a change's merge patch as it may be shown: for a Secret
// every value it sets, for any kind every value below data or
// stringData, is RedactedValue; the fields are kept.
func redactPatch(v any, all bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = redactPatch(val, all || k == "data" || k == "stringData")
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = redactPatch(val, all)
		}
		return out
	case nil:
		return nil
	default:
		if all {
			return RedactedValue
		}
		return t
	}
}

// patchText is a change's merge patch as JSON, with what it sets of a
// Secret redacted (redactPatch).
func patchText(p *PatchChange) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(redactPatch(p.Merge, p.Object.Kind == "Secret")); err != nil {
		return RedactedValue
	}
	return strings.TrimSuffix(b.String(), "\n")
}
