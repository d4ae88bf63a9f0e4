package local

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// DefaultKubeVersion is the Kubernetes version used when none is given.
const DefaultKubeVersion = config.DefaultKubeVersion

// Binaries are the paths of the control-plane executables. Scheduler and
// Kwok, which only a cluster with simulated nodes runs, are empty when the
// folder has none.
type Binaries struct {
	Etcd              string
	APIServer         string
	ControllerManager string
	Scheduler         string
	Kwok              string
}

// missingForNodes lists the executables a cluster with simulated nodes
// needs that the binaries' folder lacks.
func (b Binaries) missingForNodes() []string {
	dir := filepath.Dir(b.APIServer)
	var missing []string
	if b.Scheduler == "" {
		missing = append(missing, filepath.Join(dir, Scheduler))
	}
	if b.Kwok == "" {
		missing = append(missing, filepath.Join(dir, Kwok))
	}
	return missing
}

var kubeVersionPattern = regexp.MustCompile(`^v1\.[0-9]+\.[0-9]+$`)

// CacheRoot is where built Kubernetes binaries are cached:
// $STEADYSTATE_CACHE_DIR, else <user cache dir>/steadystate. kube-bins.sh
// (BuildBinaries) uses the same rule.
func CacheRoot() (string, error) { return config.FromEnv().CacheRoot() }

// BinDirFor is the cache folder holding the binaries of one Kubernetes version.
func BinDirFor(cacheRoot, version string) string {
	return filepath.Join(cacheRoot, "kube", version, "bin")
}

// FindBinaries locates the control-plane binaries: in binDir when it is set
// (KUBE_BIN_DIR), else in the cache folder for version (empty: the
// default). The error names the folder and the command that fills it.
func FindBinaries(binDir, version string) (Binaries, error) {
	if version == "" {
		version = DefaultKubeVersion
	}
	if binDir == "" {
		if !kubeVersionPattern.MatchString(version) {
			return Binaries{}, cli.Mark(cli.ErrInput, fmt.Errorf("KUBE_VERSION=%q is not a Kubernetes release version: use the form v1.Y.Z, for example %s", version, DefaultKubeVersion))
		}
		root, err := CacheRoot()
		if err != nil {
			return Binaries{}, err
		}
		binDir = BinDirFor(root, version)
		b, err := binariesIn(binDir)
		if err != nil {
			return Binaries{}, fmt.Errorf("%w: build them with `KUBE_VERSION=%[2]s steadystate kube-bins` (or `make kube-bins KUBE_VERSION=%[2]s`), or set KUBE_BIN_DIR to a folder holding etcd, kube-apiserver and kube-controller-manager", err, version)
		}
		return b, nil
	}
	if info, err := os.Stat(binDir); err != nil || !info.IsDir() {
		return Binaries{}, cli.Mark(cli.ErrInput, fmt.Errorf("KUBE_BIN_DIR=%s is not a folder: point it at a folder holding etcd, kube-apiserver and kube-controller-manager, or unset it to use binaries built by `make kube-bins`", binDir))
	}
	b, err := binariesIn(binDir)
	if err != nil {
		return Binaries{}, fmt.Errorf("%w: KUBE_BIN_DIR must hold etcd, kube-apiserver and kube-controller-manager (unset it to use `make kube-bins`)", err)
	}
	return b, nil
}

func binariesIn(dir string) (Binaries, error) {
	b := Binaries{
		Etcd:              filepath.Join(dir, "etcd"),
		APIServer:         filepath.Join(dir, "kube-apiserver"),
		ControllerManager: filepath.Join(dir, "kube-controller-manager"),
	}
	for _, path := range []string{b.Etcd, b.APIServer, b.ControllerManager} {
		if _, err := executable(path); err != nil {
			return Binaries{}, err
		}
	}
	// Only a cluster with simulated nodes needs these: Start says so when
	// one is missing.
	if ok, _ := executable(filepath.Join(dir, Scheduler)); ok {
		b.Scheduler = filepath.Join(dir, Scheduler)
	}
	if ok, _ := executable(filepath.Join(dir, Kwok)); ok {
		b.Kwok = filepath.Join(dir, Kwok)
	}
	return b, nil
}

func executable(path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, fmt.Errorf("missing %s", path)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return false, fmt.Errorf("%s is not an executable file", path)
	}
	return true, nil
}
