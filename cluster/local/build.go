package local

import (
	"bytes"
	"context"
	_ "embed" // the build script
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildScript builds etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler of one version from source, and kwok at a pinned version,
// through the Go module proxy (see its header);
// `make kube-bins` runs the file, an installed steadystate this copy.
//
//go:embed kube-bins.sh
var buildScript []byte

// BuildBinaries builds the control plane of version (default
// DefaultKubeVersion) into the cache, unless it is there already, and
// returns them. It needs Go on PATH and the module proxy; the script's
// progress goes to progress. A first build takes 8 to 12 minutes on two
// cores.
func BuildBinaries(ctx context.Context, version string, progress io.Writer) (Binaries, error) {
	if version == "" {
		version = DefaultKubeVersion
	}
	if b, err := FindBinaries("", version); err == nil && len(b.missingForNodes()) == 0 {
		return b, nil
	}
	if _, err := exec.LookPath("go"); err != nil {
		return Binaries{}, fmt.Errorf("building Kubernetes %s from source needs Go on PATH (https://go.dev/doc/install), or set KUBE_BIN_DIR to a folder holding etcd, kube-apiserver and kube-controller-manager", version)
	}
	dir, err := os.MkdirTemp("", "steadystate-kube-bins-")
	if err != nil {
		return Binaries{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "kube-bins.sh")
	if err := os.WriteFile(script, buildScript, 0o755); err != nil {
		return Binaries{}, err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "KUBE_VERSION="+version, "KUBE_EXTRA_BINS=")
	cmd.Stdout, cmd.Stderr = &out, progress
	if err := cmd.Run(); err != nil {
		return Binaries{}, fmt.Errorf("build Kubernetes %s from source: %w (its output is above)", version, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return FindBinaries(lines[len(lines)-1], version)
}
