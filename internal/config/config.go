package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Defaults written once: the documented defaults of docs/settings.md.
const (
	// DefaultKubeVersion is the Kubernetes version built and run by the
	// local provider when KUBE_VERSION is not set.
	DefaultKubeVersion = "v1.36.3"
	// DefaultArtifacts is ARTIFACTS' default.
	DefaultArtifacts = "_artifacts"
	// DefaultReferenceRepeat is REFERENCE_REPEAT's default.
	DefaultReferenceRepeat = 2
)

// Where subject replicas run (SUBJECT_PLACEMENT): as local processes, or as
// pods of a Deployment on the cluster.
const (
	PlacementProcesses = "processes"
	PlacementPods      = "pods"
)

// MatrixPrefixes are the matrices whose settings the environment may
// hold, as <PREFIX>_REPEAT and the others of Matrix.
var MatrixPrefixes = []string{"SELFTEST", "UPSTREAM", "CONFORM"}

// Settings are every setting the environment holds, read at once.
type Settings struct {
	// Provider is PROVIDER: local, kind or existing; empty is local.
	Provider string
	// KubeVersion is KUBE_VERSION, default DefaultKubeVersion; KubeBinDir
	// is KUBE_BIN_DIR, a folder of prebuilt binaries (empty: the cache's).
	KubeVersion, KubeBinDir string
	// Kubeconfig and KubeContext are KUBECONFIG and KUBE_CONTEXT, for the
	// existing provider.
	Kubeconfig, KubeContext string
	// KCMControllers are KCM_CONTROLLERS, comma-separated (nil: the local
	// provider's default).
	KCMControllers []string
	// LocalNodes is LOCAL_NODES as set: the local cluster's simulated
	// nodes (empty, "off" or 0 for none, "on" or a count); LocalPodStages
	// is LOCAL_POD_STAGES, a file of KWOK Stage objects.
	LocalNodes, LocalPodStages string
	// LocalAPIServerArgs are LOCAL_APISERVER_ARGS, space-separated: flags
	// added last to the local cluster's kube-apiserver, so they override
	// its defaults (--profiling=true to take CPU profiles of it).
	LocalAPIServerArgs []string
	// KindClusterName, KindNodeImage and KindConfig are KIND_CLUSTER_NAME,
	// KIND_NODE_IMAGE and KIND_CONFIG; KindKeep is KIND_KEEP=1.
	KindClusterName, KindNodeImage, KindConfig string
	KindKeep                                   bool
	// Artifacts is ARTIFACTS, default DefaultArtifacts; ArtifactsSet says
	// ARTIFACTS was set (some tests keep evidence only then).
	Artifacts    string
	ArtifactsSet bool
	// CacheDir is STEADYSTATE_CACHE_DIR (empty: CacheRoot's default).
	CacheDir string
	// StateDir is STEADYSTATE_STATE_DIR, where `cluster up` records its
	// clusters; default <tmp>/steadystate-clusters.
	StateDir string
	// UpstreamDir is UPSTREAM_DIR as set (empty: UpstreamRoot's default).
	UpstreamDir string
	// SubjectFile, Subject, SubjectBug and SubjectPlacement are
	// SUBJECT_FILE, SUBJECT, SUBJECT_BUG and SUBJECT_PLACEMENT as set
	// (the placement is PlacementProcesses or PlacementPods).
	SubjectFile, Subject, SubjectBug, SubjectPlacement string
	// RefctlBinary is REFCTL_BINARY, a prebuilt refctl.
	RefctlBinary string
	// KeepEvidence is STEADYSTATE_KEEP_EVIDENCE=1.
	KeepEvidence bool
	// ReferenceRepeat is REFERENCE_REPEAT, default DefaultReferenceRepeat
	// (a value that is not a positive number is the default).
	ReferenceRepeat int
	// RequireBinaries is STEADYSTATE_REQUIRE_BINARIES=1: a test that
	// needs the Kubernetes binaries fails instead of skipping.
	RequireBinaries bool
	// DockerHost is Docker's DOCKER_HOST, named when no engine answers.
	DockerHost string
	// Matrix holds each matrix's settings by prefix (MatrixPrefixes).
	Matrix map[string]Matrix
}

// Matrix is one matrix's settings as set: <PREFIX>_REPEAT,
// <PREFIX>_PARALLEL, and its selection, SELFTEST_SUITES,
// SELFTEST_SUBJECTS and SELFTEST_MODES, or UPSTREAM_CELLS.
type Matrix struct {
	Repeat, Parallel        string
	Suites, Subjects, Modes string
	Cells                   string
}

// From reads the settings through getenv, filling in the defaults.
func From(getenv func(string) string) Settings {
	s := Settings{
		Provider: getenv("PROVIDER"), KubeVersion: getenv("KUBE_VERSION"), KubeBinDir: getenv("KUBE_BIN_DIR"),
		Kubeconfig: getenv("KUBECONFIG"), KubeContext: getenv("KUBE_CONTEXT"), KCMControllers: splitList(getenv("KCM_CONTROLLERS")),
		LocalNodes: getenv("LOCAL_NODES"), LocalPodStages: getenv("LOCAL_POD_STAGES"),
		LocalAPIServerArgs: strings.Fields(getenv("LOCAL_APISERVER_ARGS")),
		KindClusterName:    getenv("KIND_CLUSTER_NAME"), KindNodeImage: getenv("KIND_NODE_IMAGE"), KindConfig: getenv("KIND_CONFIG"),
		KindKeep: getenv("KIND_KEEP") == "1", Artifacts: getenv("ARTIFACTS"), CacheDir: getenv("STEADYSTATE_CACHE_DIR"),
		StateDir: getenv("STEADYSTATE_STATE_DIR"), UpstreamDir: getenv("UPSTREAM_DIR"),
		SubjectFile: getenv("SUBJECT_FILE"), Subject: getenv("SUBJECT"), SubjectBug: getenv("SUBJECT_BUG"),
		SubjectPlacement: getenv("SUBJECT_PLACEMENT"), RefctlBinary: getenv("REFCTL_BINARY"),
		KeepEvidence: getenv("STEADYSTATE_KEEP_EVIDENCE") == "1", ReferenceRepeat: DefaultReferenceRepeat,
		RequireBinaries: getenv("STEADYSTATE_REQUIRE_BINARIES") == "1", DockerHost: getenv("DOCKER_HOST"),
		Matrix: map[string]Matrix{},
	}
	if s.KubeVersion == "" {
		s.KubeVersion = DefaultKubeVersion
	}
	s.ArtifactsSet = s.Artifacts != ""
	if !s.ArtifactsSet {
		s.Artifacts = DefaultArtifacts
	}
	if s.StateDir == "" {
		s.StateDir = filepath.Join(os.TempDir(), "steadystate-clusters")
	}
	if n, err := strconv.Atoi(getenv("REFERENCE_REPEAT")); err == nil && n > 0 {
		s.ReferenceRepeat = n
	}
	for _, p := range MatrixPrefixes {
		s.Matrix[p] = Matrix{Repeat: getenv(p + "_REPEAT"), Parallel: getenv(p + "_PARALLEL")}
	}
	// Only the self-test selects cells by suite, subject and mode, and
	// only the upstream matrix by cell.
	self := s.Matrix["SELFTEST"]
	self.Suites, self.Subjects, self.Modes = getenv("SELFTEST_SUITES"), getenv("SELFTEST_SUBJECTS"), getenv("SELFTEST_MODES")
	s.Matrix["SELFTEST"] = self
	up := s.Matrix["UPSTREAM"]
	up.Cells = getenv("UPSTREAM_CELLS")
	s.Matrix["UPSTREAM"] = up
	return s
}

// FromEnv reads the settings from this process's environment now (a test
// that sets a variable reads it so).
func FromEnv() Settings { return From(os.Getenv) }

// Process is this process's settings, read from its environment at the
// first call.
var Process = sync.OnceValue(FromEnv)

// CacheRoot is where built binaries are cached: STEADYSTATE_CACHE_DIR,
// else <user cache dir>/steadystate. kube-bins.sh uses the same rule.
func (s Settings) CacheRoot() (string, error) {
	if s.CacheDir != "" {
		return s.CacheDir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a cache folder (%v): set STEADYSTATE_CACHE_DIR", err)
	}
	return filepath.Join(dir, "steadystate"), nil
}

// UpstreamRoot is UPSTREAM_DIR made absolute, else <cache>/upstream: the
// folder the upstream releases are built into and subject files read
// from.
func (s Settings) UpstreamRoot() (string, error) {
	if s.UpstreamDir != "" {
		return filepath.Abs(s.UpstreamDir)
	}
	root, err := s.CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "upstream"), nil
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
