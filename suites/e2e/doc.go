// Package e2e runs the suites of `make e2e` from the one steadystate
// program: each suite in a child process of it (`steadystate suite NAME`,
// since Ginkgo runs one suite per process), one after the other, every
// suite whichever failed before it (the ginkgo command's --keep-going),
// and their Ginkgo JSON reports merged into one report.json, as the ginkgo
// command writes it. Nothing is compiled at run time.
package e2e
