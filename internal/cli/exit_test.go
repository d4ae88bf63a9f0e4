package cli

import (
	"errors"
	"fmt"
	"testing"
)

func TestExitCode(t *testing.T) {
	broke := Mark(ErrFinding, errors.New("leader/only-holder-writes broke"))
	crashed := Mark(ErrHarness, errors.New("the suite exited without its report"))
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"passed", nil, ExitPassed},
		{"a finding", broke, ExitFinding},
		{"a finding, wrapped", fmt.Errorf("conform: %w", broke), ExitFinding},
		{"a harness error", crashed, ExitError},
		{"an error marked with nothing", errors.New("open report.json: no such file"), ExitError},
		{"a finding beside an error", errors.Join(crashed, broke), ExitFinding},
		{"an error beside gaps", errors.Join(Mark(ErrGaps, errors.New("gaps")), crashed), ExitError},
		{"gaps refused", Mark(ErrGaps, errors.New("passed with gaps")), ExitGaps},
		{"a usage mistake", fmt.Errorf("%w: verify takes one bundle", ErrUsage), ExitUsage},
		{"input refused", Mark(ErrInput, errors.New("subject file: no such file")), ExitUsage},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Marking keeps the message and never turns a usage error or a help
// request into another kind.
func TestMarkKeepsMessageAndUsage(t *testing.T) {
	err := Mark(ErrFinding, errors.New("1 spec(s) broke a property"))
	if err.Error() != "1 spec(s) broke a property" {
		t.Errorf("message %q", err)
	}
	usage := fmt.Errorf("%w: conform needs --subject FILE", ErrUsage)
	if got := Mark(ErrInput, usage); got != usage || ExitCode(got) != ExitUsage {
		t.Errorf("a usage error marked: %v, exit %d", got, ExitCode(got))
	}
	help := HelpRequest{Text: "usage: steadystate verify"}
	if got := Mark(ErrInput, help); got != error(help) {
		t.Errorf("a help request marked: %#v", got)
	}
	if Mark(ErrFinding, nil) != nil {
		t.Error("nil marked is not nil")
	}
}
