// Package reports reads the JUnit files Ginkgo writes and summarises them for
// people and for CI.
package reports
