package proxy

import (
	"os"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
)

// One local cluster serves every proxy test; each test has its own
// namespace and proxy.
var (
	shared    *localtest.Cluster
	sharedErr error
)

func TestMain(m *testing.M) { os.Exit(localtest.RunShared(m, "proxy-test", &shared, &sharedErr)) }

func cluster(t *testing.T) *localtest.Cluster { return localtest.Require(t, shared, sharedErr) }

func localtestRequire(b *testing.B) *localtest.Cluster {
	return localtest.Require(b, shared, sharedErr)
}
