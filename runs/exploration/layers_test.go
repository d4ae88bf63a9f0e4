package exploration_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunnersAndJudgesStayApartFromTheSuites: the packages that run
// suites and judge what they recorded import no Ginkgo suite package
// (suites/...) and neither Ginkgo's DSL nor gomega: they read the
// suites' reports and evidence as data. A new import across that line
// fails here, naming the package that crosses it.
func TestRunnersAndJudgesStayApartFromTheSuites(t *testing.T) {
	const module = "github.com/steadystate-dev/steadystate/"
	roots := []string{"runs/...", "judge/...", "chaos/..."}
	args := []string{"list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}
	for _, r := range roots {
		args = append(args, module+r)
	}
	// go test puts its own Go first on PATH.
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	forbidden := func(p string) bool {
		return strings.HasPrefix(p, module+"suites") || p == "github.com/onsi/ginkgo/v2" || strings.HasPrefix(p, "github.com/onsi/gomega")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || forbidden(fields[0]) {
			continue
		}
		for _, imp := range fields[1:] {
			if forbidden(imp) {
				t.Errorf("%s imports %s", fields[0], imp)
			}
		}
	}
}
