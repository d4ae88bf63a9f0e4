package main

import (
	"os"
	"path/filepath"
	"sync"
)

// environment is what this program's own commands take from the
// environment, read once: the documented defaults of their flags and the
// settings make passes down (see the usage's Environment paragraph).
type environment struct {
	// Provider is PROVIDER, Artifacts ARTIFACTS (default _artifacts),
	// UpstreamDir UPSTREAM_DIR, KubeVersion KUBE_VERSION, StateDir
	// STEADYSTATE_STATE_DIR.
	Provider, Artifacts, UpstreamDir, KubeVersion, StateDir string
	// Matrix holds each matrix's <PREFIX>_* settings by prefix (SELFTEST,
	// UPSTREAM, CONFORM, EXPLORE).
	Matrix map[string]matrixEnv
}

// matrixEnv is one matrix's settings: <PREFIX>_REPEAT, <PREFIX>_PARALLEL,
// and its selection, SELFTEST_SUITES and SELFTEST_MODES, or
// UPSTREAM_CELLS.
type matrixEnv struct {
	Repeat, Parallel string
	Suites, Modes    string
	Cells            string
}

// matrixPrefixes are the matrices whose settings the environment may hold.
var matrixPrefixes = []string{"SELFTEST", "UPSTREAM", "CONFORM", "EXPLORE"}

// env is this process's environment, read at its first use.
var env = sync.OnceValue(func() environment {
	e := environment{
		Provider: os.Getenv("PROVIDER"), Artifacts: os.Getenv("ARTIFACTS"), UpstreamDir: os.Getenv("UPSTREAM_DIR"),
		KubeVersion: os.Getenv("KUBE_VERSION"), StateDir: os.Getenv("STEADYSTATE_STATE_DIR"),
		Matrix: map[string]matrixEnv{},
	}
	if e.Artifacts == "" {
		e.Artifacts = "_artifacts"
	}
	if e.StateDir == "" {
		e.StateDir = filepath.Join(os.TempDir(), "steadystate-clusters")
	}
	for _, p := range matrixPrefixes {
		e.Matrix[p] = matrixEnv{
			Repeat: os.Getenv(p + "_REPEAT"), Parallel: os.Getenv(p + "_PARALLEL"),
			Suites: os.Getenv(p + "_SUITES"), Modes: os.Getenv(p + "_MODES"), Cells: os.Getenv(p + "_CELLS"),
		}
	}
	return e
})
