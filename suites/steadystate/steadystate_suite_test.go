package steadystate

import (
	"flag"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.RegisterFlags(flag.CommandLine)
	os.Exit(m.Run())
}

func TestSteadyState(t *testing.T) {
	RegisterFailHandler(Fail)
	Register()
	RunSpecs(t, Title)
}
