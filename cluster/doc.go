// Package cluster chooses the cluster a run uses. Each provider lives in a
// package of its own (local, kind, existing) and implements e2e-framework's
// support.E2EClusterProvider, so the same providers serve steadystate's
// suites, its command line, and anyone's e2e-framework tests.
package cluster
