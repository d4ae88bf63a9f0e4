package proxy

import (
	"os"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
)

// One local cluster serves every proxy test; each test has its own
// namespace and proxy.
var (
	shared    *localtest.Cluster
	sharedErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proxy-test-logs-")
	if err != nil {
		panic(err)
	}
	var stop func()
	shared, stop, sharedErr = localtest.StartShared(local.Options{Name: "proxy-test", LogDir: dir})
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

func cluster(t *testing.T) *localtest.Cluster { return localtest.Require(t, shared, sharedErr) }

func localtestRequire(b *testing.B) *localtest.Cluster {
	return localtest.Require(b, shared, sharedErr)
}
