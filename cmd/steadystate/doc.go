// Command steadystate brings clusters up and down for people debugging by
// hand and summarises reports.
//
//	steadystate cluster up [--name N]     start a local cluster; runs until Ctrl-C or `cluster down`
//	steadystate cluster down [--name N]   stop a cluster started by `cluster up`
//	steadystate cluster status [--name N] show whether it is up and how to reach it
//	steadystate report FILE               summarise a run: report.json by verdict, junit.xml by status
//	steadystate junit REPORT.json OUT.xml JUnit for CI tools: one testcase per spec, valid
//	                                      against Jenkins' junit-10.xsd
//	steadystate selftest                  the self-test matrix (SELFTEST_REPEAT=N repeats it,
//	                                      SELFTEST_SUITES=a,b and SELFTEST_MODES=m,n pick cells,
//	                                      SELFTEST_PARALLEL=N runs N cells at a time)
//	steadystate html DIR [OUT]            a run's report page: every spec, and a timeline of
//	                                      each failing one with its broken properties marked
//	steadystate conform --subject FILE    every suite the subject's capabilities allow, once; writes
//	                                      a results bundle ($ARTIFACTS/conformance.tar.gz)
//	steadystate verify [--digest SHA256] BUNDLE
//	                                      check a bundle's sums, and its manifest against the
//	                                      digest conform printed; re-judge every verdict offline
//	steadystate catalog                   the bug catalog and the properties, as Markdown (docs/properties.md)
//	steadystate validate DIR              re-judge a run's evidence offline and compare verdicts
package main
