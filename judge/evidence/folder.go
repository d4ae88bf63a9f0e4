package evidence

import (
	"regexp"
	"strings"
)

var unsafeInName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SpecFolder is the folder, under a run's artifacts, of the spec whose
// full text is spec: where its evidence, history and logs are kept.
func SpecFolder(spec string) string {
	return strings.Trim(unsafeInName.ReplaceAllString(spec, "-"), "-")
}
