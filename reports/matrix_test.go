package reports

import (
	"bytes"
	"strings"
	"testing"
)

func TestVerdicts(t *testing.T) {
	pass, fail := Run{}, Run{Failed: true, Property: `convergence "replicas"`}
	cases := []struct {
		cell Cell
		want string
		ok   bool
	}{
		{Cell{Runs: []Run{pass, pass}}, "passed", true},
		{Cell{Runs: []Run{fail}}, `false alarm: convergence "replicas"`, false},
		{Cell{Runs: []Run{pass, fail}}, "flaky: false alarm in 1/2", false},
		{Cell{Bug: "b", Runs: []Run{fail, fail}}, `caught: convergence "replicas"`, true},
		{Cell{Bug: "b", Runs: []Run{pass}}, "missed", false},
		{Cell{Bug: "b", Runs: []Run{fail, pass, fail}}, "flaky: caught in 2/3", false},
	}
	for _, tc := range cases {
		got, ok := tc.cell.Verdict()
		if !strings.HasPrefix(got, tc.want) || ok != tc.ok {
			t.Errorf("%+v: verdict %q %v, want %q %v", tc.cell, got, ok, tc.want, tc.ok)
		}
	}
	var out bytes.Buffer
	if PrintMatrix(&out, []Cell{{Suite: "s", Runs: []Run{pass}}, {Suite: "s", Bug: "b", Runs: []Run{pass}}}) {
		t.Error("a missed bug must fail the matrix")
	}
	if !strings.HasSuffix(out.String(), "selftest: 1 passed, 1 failed\n") {
		t.Errorf("matrix:\n%s", out.String())
	}
}

func TestFirstProperty(t *testing.T) {
	msg := "convergence \"status.replicas converges\": once the desired state stops changing...: still not matching\ninvariant \"x\": y"
	if got := FirstProperty(msg); got != `convergence "status.replicas converges"` {
		t.Errorf("FirstProperty = %q", got)
	}
}
