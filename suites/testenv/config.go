package testenv

import (
	"sync"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// Where subject replicas run: as local processes, or as pods of a
// Deployment on the cluster.
const (
	Processes = config.PlacementProcesses
	Pods      = config.PlacementPods
)

// Config is one run's configuration. It is read from the environment once
// per process (Run) and passed down from there; nothing else in the suites
// reads or writes the environment.
type Config struct {
	// Cluster is the provider's configuration: PROVIDER, KUBE_VERSION,
	// KUBE_BIN_DIR, KUBECONFIG, KUBE_CONTEXT, KCM_CONTROLLERS, KIND_*.
	Cluster cluster.Config
	// Artifacts is the root of JUnit, logs and failure artifacts.
	// ARTIFACTS, default _artifacts.
	Artifacts string
	// SubjectFile is a subject file (SUBJECT_FILE), Subject a built-in
	// subject's name (SUBJECT) and Bug a reference controller's seeded bug
	// (SUBJECT_BUG).
	SubjectFile, Subject, Bug string
	// Placement is where subject replicas run: SUBJECT_PLACEMENT, default
	// pods on kind and processes elsewhere.
	Placement string
	// Refctl is a prebuilt refctl (REFCTL_BINARY); empty: the suite builds
	// it from source.
	Refctl string
	// KeepEvidence keeps every spec's evidence.json and history.txt, not
	// only a failing spec's (STEADYSTATE_KEEP_EVIDENCE=1).
	KeepEvidence bool
	// UpstreamDir is where `make upstream-bins` builds the upstream
	// releases (UPSTREAM_DIR, default <cache>/upstream); subject files
	// reach it as {{.UpstreamDir}}.
	UpstreamDir string
}

// ConfigFromEnv reads the run's configuration from the environment.
func ConfigFromEnv() Config {
	s := config.FromEnv()
	c := Config{
		Cluster:      cluster.ConfigFrom(s),
		Artifacts:    s.Artifacts,
		SubjectFile:  s.SubjectFile,
		Subject:      s.Subject,
		Bug:          s.SubjectBug,
		Placement:    s.SubjectPlacement,
		Refctl:       s.RefctlBinary,
		KeepEvidence: s.KeepEvidence,
	}
	c.UpstreamDir, _ = s.UpstreamRoot()
	if c.Placement == "" {
		c.Placement = Processes
		if c.Cluster.Provider == cluster.Kind {
			c.Placement = Pods
		}
	}
	return c
}

// FromImage says a subject in pods starts from its image as it is: on an
// existing cluster, whose nodes have the images or pull them, nothing is
// packed or loaded.
func (c Config) FromImage() bool {
	return c.Placement == Pods && c.Cluster.Provider == cluster.Existing
}

// ProviderName is the cluster provider's name, local when none is set.
func (c Config) ProviderName() string {
	if c.Cluster.Provider == "" {
		return cluster.Local
	}
	return c.Cluster.Provider
}

var (
	runOnce sync.Once
	run     Config
)

// Run is this process's configuration, read from the environment at its
// first use, with the cell's flags given in place of their variables.
func Run() Config {
	runOnce.Do(func() {
		run = ConfigFromEnv()
		applyCellFlags(&run)
	})
	return run
}
