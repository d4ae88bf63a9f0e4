package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// A check that stopped on a context's end judged nothing: before, its
// error was recorded as the property broken, and only Ginkgo's state
// (interrupted, timed out) kept the spec from being a finding.
func TestAContextEndIsNotEvaluatedNeverBroken(t *testing.T) {
	check := func(err error) oracle.Check {
		return oracle.Check{Property: catalog.LeaderFailover, Run: func() error { return err }}
	}
	never := func() bool { return false }
	ended := func() bool { return true }
	cases := []struct {
		name  string
		c     oracle.Check
		ended func() bool
		want  verdict.Outcome
	}{
		{"canceled", check(context.Canceled), never, verdict.NotEvaluated},
		{"deadline, wrapped", check(fmt.Errorf("wait for the Lease: %w", context.DeadlineExceeded)), never, verdict.NotEvaluated},
		{"a verdict after the spec's context ended", check(errors.New("no replica holds the Lease")), ended, verdict.NotEvaluated},
		{"a verdict", check(errors.New("no replica holds the Lease")), never, verdict.Broken},
		{"held after the end", check(nil), ended, verdict.Held},
	}
	for _, tc := range cases {
		recs := oracle.Validate(time.Now(), unjudgedOnContextEnd(tc.c, tc.ended))
		if len(recs) != 1 || recs[0].Outcome != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, recs, tc.want)
			continue
		}
		if tc.want == verdict.NotEvaluated && !strings.Contains(recs[0].Reason, "the spec ended before leader/failover-in-time was judged") {
			t.Errorf("%s: reason %q", tc.name, recs[0].Reason)
		}
	}
}

// Every spec of every suite declares what it judges: an It without a
// declaration would pass on whatever records it happened to attach.
func TestEverySpecDeclaresWhatItJudges(t *testing.T) {
	files, err := filepath.Glob("../../suites/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	specs := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			trimmed := strings.TrimSpace(line)
			// it( declares a spec through a suite's wrapper (a part's
			// share); the wrapper's own It passes its callers' on.
			if !strings.HasPrefix(trimmed, "It(") && !strings.HasPrefix(trimmed, "it(") || strings.HasPrefix(trimmed, "It(text, append(args") {
				continue
			}
			specs++
			if !strings.Contains(line, "testenv.Judges(") && !strings.Contains(line, "judges(") {
				t.Errorf("%s:%d: the It declares no property (decorate it with testenv.Judges)", f, i+1)
			}
		}
	}
	if specs < 10 {
		t.Errorf("found %d specs below suites/: the test looks in the wrong place", specs)
	}
}
