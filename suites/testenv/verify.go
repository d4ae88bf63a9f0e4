package testenv

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Verify judges the current spec. It evaluates the checks with
// oracle.Validate, adds whether every history the spec recorded is
// complete (catalog.EvidenceComplete), attaches every record to the spec's
// report (Ginkgo's report entries, read back by the self-test and the
// reports) and fails the spec with one short, stable line per broken
// property, or with the assumption that did not hold.
func Verify(checks ...oracle.Check) []verdict.Record {
	GinkgoHelper()
	base := CurrentSpecReport().StartTime
	records := oracle.Validate(base, checks...)
	complete := judge.Offline[catalog.EvidenceComplete.ID](specEvidence().Snapshot())
	records = append([]verdict.Record{oracle.Judge(base, catalog.EvidenceComplete, complete)}, records...)
	specEvidence().SetRecords(records)
	for _, r := range records {
		AddReportEntry(verdict.EntryName, ReportEntryVisibilityFailureOrVerbose, r)
	}
	if msg := verdict.Message(records); msg != "" {
		Fail(msg)
	}
	return records
}
