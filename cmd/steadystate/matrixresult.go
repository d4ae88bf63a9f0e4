package main

import (
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/reports"
)

// matrixFailure prints the result of the cells of command's matrix (a
// self-test's or an upstream matrix's, what), which ran
// (reports.MatrixResult), and is the command's
// failure: a finding of the matrix (a correct mode that broke a property,
// a bug missed or caught on other properties), or, when the cells not as
// intended only ended in errors or judged nothing, a harness error.
func matrixFailure(command, what string, cells []reports.Cell, stdout io.Writer) error {
	word, detail := reports.MatrixResult(cells)
	fmt.Fprintf(stdout, "%s: %s\n", command, reports.Line(word, detail))
	switch word {
	case reports.ResultPassed, reports.ResultWithGaps:
		return nil
	case reports.ResultNotPassed:
		return reports.Fail(word, false, fmt.Sprintf("the %s failed: a correct subject broke a property, or one with a bug did not break exactly its declared properties, every time", what))
	}
	return reports.Fail(word, false, fmt.Sprintf("the %s did not judge every cell: a run ended in an error or judged nothing, which is no finding; run it again", what))
}
