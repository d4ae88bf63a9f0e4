// Package splice writes a generated block into a page between two marker
// lines, as `make docs` does for the pages' generated tables.
package splice

import (
	"bytes"
	"fmt"
	"strings"
)

// Between returns page with what lies between begin and the first end
// after it replaced by content; the markers stay. An error names the
// marker missing.
func Between(page []byte, begin, end, content string) ([]byte, error) {
	before, rest, ok := bytes.Cut(page, []byte(begin))
	if !ok {
		return nil, fmt.Errorf("no line %q: put the begin and end markers where the generated block goes", strings.TrimSpace(begin))
	}
	_, after, ok := bytes.Cut(rest, []byte(end))
	if !ok {
		return nil, fmt.Errorf("no line %q after %q: put it where the generated block ends", strings.TrimSpace(end), strings.TrimSpace(begin))
	}
	var out bytes.Buffer
	out.Write(before)
	out.WriteString(begin)
	out.WriteString(content)
	out.WriteString(end)
	out.Write(after)
	return out.Bytes(), nil
}
