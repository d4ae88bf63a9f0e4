// Package catalog is the one list of what steadystate claims: every
// property the suites check (Properties), and every seeded bug of the
// reference controllers with the suite that must catch it, the exact
// properties it must break and where it comes from (Bugs). The self-test's
// cells, the self-test table of docs/properties.md (`steadystate catalog`) and refctl's
// --bug validation all come from here, so they cannot drift apart.
package catalog
