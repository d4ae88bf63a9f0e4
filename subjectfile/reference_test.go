package subjectfile

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// ReferencePage is the subject-file reference, generated from the Go types
// of this package (their fields, JSON names and doc comments).
const ReferencePage = "docs/subject-file-reference.md"

// update rewrites ReferencePage instead of comparing it (make docs).
var update = flag.Bool("update", false, "rewrite "+ReferencePage+" from the Go types")

// TestReferencePageHasTheTypes fails when the reference and the types a
// subject file decodes into drift apart: a field added, renamed or
// documented differently. With -update (make docs) it rewrites the page.
func TestReferencePageHasTheTypes(t *testing.T) {
	want, err := referencePage(".")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", ReferencePage)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `make docs` to write it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run `make docs` to regenerate it from the Go types", ReferencePage)
	}
}

// The reference names every field a file may set, and a field the types
// gain shows up in it: checked on a package of one type.
func TestReferenceFollowsTheTypes(t *testing.T) {
	dir := t.TempDir()
	src := "package subjectfile\n\n// File is a subject file.\ntype File struct {\n\t// Name names it.\n\tName string `json:\"name\"`\n\t// Hidden is not read.\n\tHidden string `json:\"-\"`\n\tRun Run `json:\"run\"`\n}\n\n// Run starts it.\ntype Run struct {\n\t// Wait is how long.\n\tWait Duration `json:\"wait,omitempty\"`\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	page, err := referencePage(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `name` | string | Name names it. |", "| `run` | [Run](#run) |", "## Run\n\nAt `run`.", "| `wait` | duration (30s, 5m) | Wait is how long. |"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page does not say %q:\n%s", want, page)
		}
	}
	if bytes.Contains(page, []byte("Hidden")) {
		t.Errorf("a field the file cannot set is listed:\n%s", page)
	}
}

// referencePage renders the types of the package in dir, from File down,
// one section per struct type in the order a file nests them.
func referencePage(dir string) ([]byte, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "subjectfile" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no package subjectfile", dir)
	}
	pkg, err := doc.NewFromFiles(fset, files, "subjectfile", doc.AllDecls)
	if err != nil {
		return nil, err
	}
	types := map[string]*doc.Type{}
	for _, ty := range pkg.Types {
		types[ty.Name] = ty
	}
	var b bytes.Buffer
	b.WriteString("# Subject file reference\n\n")
	b.WriteString("<!-- Generated from the Go types of package subjectfile by `make docs`; do not edit. -->\n\n")
	b.WriteString("*For whoever writes a subject file and wants every field: generated from the types the file is\n")
	b.WriteString("decoded into, so it is never behind them. The guide with an annotated example is\n")
	b.WriteString("[subject files](subject-files.md).*\n\n")
	b.WriteString("A subject file is YAML, decoded strictly: an unknown field, a wrong type or a missing required\n")
	b.WriteString("field stops the run before anything starts, naming the field. Durations are Go durations\n")
	b.WriteString("(`30s`, `5m`). One section per type, in the order a file nests them, from the top (File).\n")
	seen := map[string]bool{}
	queue := []struct{ name, path string }{{"File", ""}}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		ty := types[next.name]
		if ty == nil || seen[next.name] {
			continue
		}
		seen[next.name] = true
		st := structOf(ty)
		if st == nil {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", next.name)
		if next.path != "" {
			fmt.Fprintf(&b, "At `%s`.\n\n", next.path)
		}
		if text := oneParagraph(ty.Doc); text != "" {
			fmt.Fprintf(&b, "%s\n\n", text)
		}
		b.WriteString("| field | type | what it says |\n|---|---|---|\n")
		for _, f := range st.Fields.List {
			name := jsonName(f)
			if name == "" {
				continue
			}
			kind, ref := typeText(f.Type, types)
			if ref != "" && !seen[ref] {
				queue = append(queue, struct{ name, path string }{ref, strings.TrimPrefix(next.path+"."+name, ".")})
			}
			// The field's own doc; else its type's first sentence, with
			// the field's line comment (the version that added it).
			text, line := oneParagraph(f.Doc.Text()), oneParagraph(f.Comment.Text())
			switch {
			case text != "":
			case ref != "" && line != "":
				text = firstSentence(oneParagraph(types[ref].Doc)) + " (" + line + ")"
			case ref != "":
				text = firstSentence(oneParagraph(types[ref].Doc))
			default:
				text = line
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, kind, strings.ReplaceAll(text, "|", `\|`))
		}
	}
	return b.Bytes(), nil
}

// structOf is ty's struct, nil when it is none.
func structOf(ty *doc.Type) *ast.StructType {
	for _, spec := range ty.Decl.Specs {
		if ts, ok := spec.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				return st
			}
		}
	}
	return nil
}

// jsonName is the field's name in a file, "" when a file cannot set it.
func jsonName(f *ast.Field) string {
	if f.Tag == nil || len(f.Names) != 1 {
		return ""
	}
	tag := reflect.StructTag(strings.Trim(f.Tag.Value, "`")).Get("json")
	if name, _, _ := strings.Cut(tag, ","); name != "-" {
		return name
	}
	return ""
}

// typeText renders a field's type for a reader; ref names the package's
// struct type it refers to, for a section of its own.
func typeText(e ast.Expr, types map[string]*doc.Type) (text, ref string) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return typeText(t.X, types)
	case *ast.ArrayType:
		inner, ref := typeText(t.Elt, types)
		return "list of " + inner, ref
	case *ast.MapType:
		k, _ := typeText(t.Key, types)
		v, ref := typeText(t.Value, types)
		if k == "string" && v == "any" {
			return "object (a YAML mapping)", ref
		}
		return "map of " + k + " to " + v, ref
	case *ast.InterfaceType:
		return "any", ""
	case *ast.Ident:
		switch {
		case t.Name == "Duration":
			return "duration (30s, 5m)", ""
		case t.Name == "any":
			return "manifest (a mapping) or path", ""
		case types[t.Name] != nil && structOf(types[t.Name]) != nil:
			return fmt.Sprintf("[%s](#%s)", t.Name, strings.ToLower(t.Name)), t.Name
		}
		return t.Name, ""
	}
	return fmt.Sprintf("%T", e), ""
}

var spaces = regexp.MustCompile(`\s+`)

// oneParagraph is a doc comment on one line.
func oneParagraph(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// firstSentence is s up to its first full stop.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
