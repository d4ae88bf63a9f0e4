// Package docs holds the project's documentation; its test checks the
// links between the pages.
package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, from this folder.
const root = ".."

// skipped are the folders whose Markdown is not the project's pages:
// run output, build output, and the version control's.
var skipped = map[string]bool{".git": true, "_artifacts": true, "bin": true, "_images": true, "node_modules": true}

var (
	linkRE    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	anchorRE  = regexp.MustCompile(`<a (?:name|id)="([^"]+)"`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	inlineRE  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// pages lists every Markdown file of the repository, relative to root.
func pages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipped[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// prose returns the lines of a page outside fenced code blocks, each with
// its line number.
func prose(page []byte) (lines []string, numbers []int) {
	fenced := false
	s := bufio.NewScanner(bytes.NewReader(page))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
			numbers = append(numbers, n)
		}
	}
	return lines, numbers
}

// Anchors returns the anchors a page's headings (as GitHub makes them:
// lower case, punctuation dropped, spaces to hyphens, a repeated one
// numbered) and its explicit <a name> or <a id> tags give.
func Anchors(page []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines, _ := prose(page)
	for _, line := range lines {
		for _, m := range anchorRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := strings.NewReplacer("`", "", "*", "").Replace(m[1])
		text = inlineRE.ReplaceAllString(text, "$1")
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// TestLinksResolve checks every link of every page: a relative one names a
// file or folder of the repository and, with #anchor into a page, one of
// its headings; none leads outside the repository, whose pages must stand
// alone.
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		anchors[page] = Anchors(b)
		return anchors[page], nil
	}
	checked := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		lines, numbers := prose(b)
		for i, line := range lines {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				at := fmt.Sprintf("%s:%d: link %s", page, numbers[i], target)
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					t.Errorf("%s leads outside the repository: the pages must stand alone", at)
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := page
				if path != "" {
					dest = filepath.Clean(filepath.Join(filepath.Dir(page), path))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s: no such file or folder %s", at, dest)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				a, err := anchorsOf(dest)
				if err != nil {
					t.Errorf("%s: %v", at, err)
					continue
				}
				if !a[anchor] {
					t.Errorf("%s: %s has no heading with the anchor #%s", at, dest, anchor)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d links: fewer than the pages hold, is the link pattern wrong?", checked)
	}
	t.Logf("%d links checked", checked)
}

func TestAnchors(t *testing.T) {
	page := []byte("# Exit codes\n## The `verify` command: what it checks\n```\n# not a heading\n```\n## Exit codes\n<a name=\"kept\"></a>\n")
	got := Anchors(page)
	for _, want := range []string{"exit-codes", "the-verify-command-what-it-checks", "exit-codes-1", "kept"} {
		if !got[want] {
			t.Errorf("Anchors lacks %q: %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block was taken for a heading")
	}
}
