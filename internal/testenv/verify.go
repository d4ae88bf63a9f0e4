package testenv

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Verify judges the current spec. It evaluates the checks with
// oracle.Validate, adds whether every history the spec recorded is
// complete (catalog.EvidenceComplete), attaches every record to the spec's
// report (Ginkgo's report entries, read back by the self-test and the
// reports) and fails the spec with one short, stable line per broken
// property, or with the assumption that did not hold. A check that ends
// on a context's end (the spec's, or a wait's that ran out) is not
// evaluated, never broken. The spec's NotBound records are kept with the
// others.
func Verify(checks ...oracle.Check) []verdict.Record {
	GinkgoHelper()
	base := CurrentSpecReport().StartTime
	wrapped := make([]oracle.Check, len(checks))
	for i, c := range checks {
		wrapped[i] = unjudgedOnContextEnd(c, specContextEnded)
	}
	records := oracle.Validate(base, wrapped...)
	complete := judge.Offline[catalog.EvidenceComplete.ID](specEvidence().Snapshot())
	records = append([]verdict.Record{oracle.Judge(base, catalog.EvidenceComplete, complete)}, records...)
	for _, r := range records {
		AddReportEntry(verdict.EntryName, ReportEntryVisibilityFailureOrVerbose, r)
	}
	// NotBound attached its records already.
	records = append(records, notBoundRecords()...)
	specEvidence().SetRecords(records)
	if msg := verdict.Message(records); msg != "" {
		Fail(msg)
	}
	return records
}
