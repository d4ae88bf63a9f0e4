package local

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// requireBinaries returns the cached binaries' folder. Without them the
// integration tests cannot run: they skip with the reason, or fail when
// STEADYSTATE_REQUIRE_BINARIES=1 (set by `make test`, where kube-bins runs
// first).
func requireBinaries(t testing.TB) Binaries {
	t.Helper()
	b, err := FindBinaries(os.Getenv("KUBE_BIN_DIR"), envOr("KUBE_VERSION", DefaultKubeVersion))
	if err != nil {
		if os.Getenv("STEADYSTATE_REQUIRE_BINARIES") == "1" {
			t.Fatalf("Kubernetes binaries are required: %v", err)
		}
		t.Skipf("needs Kubernetes binaries, which are not built: %v", err)
	}
	return b
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// binDirOf is the folder of the binaries.
func binDirOf(b Binaries) string { return filepath.Dir(b.APIServer) }

// assertGone fails unless every process is gone and the folder removed.
func assertGone(t *testing.T, pids map[string]int, workDir string) {
	t.Helper()
	for name, pid := range pids {
		if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
			t.Errorf("%s (pid %d) is still running after Stop", name, pid)
		}
	}
	if _, err := os.Stat(workDir); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s still exists after Stop (stat: %v)", workDir, err)
	}
}
