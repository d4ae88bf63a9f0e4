package suites

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/controlplane"
	"github.com/steadystate-dev/steadystate/suites/explore"
	"github.com/steadystate-dev/steadystate/suites/finalizer"
	"github.com/steadystate-dev/steadystate/suites/foreground"
	"github.com/steadystate-dev/steadystate/suites/leader"
	"github.com/steadystate-dev/steadystate/suites/lostevents"
	"github.com/steadystate-dev/steadystate/suites/reconcile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Suite is a suite compiled into this program.
type Suite struct {
	// Name is the catalog's (catalog.Suites), Title the report's.
	Name, Title string
	// Register declares the suite's lifecycle and specs.
	Register func()
	// Flags, when set, adds the suite's own -steadystate.* flags to fs
	// and returns the suite's Register, which reads them once parsed.
	Flags func(fs *flag.FlagSet) (register func())
	// Long marks a suite that takes much longer than the others: a run
	// of suites side by side starts it first, so the others run beside
	// it rather than before it.
	Long bool
	// Parts, when above 1, is how many processes a run of suites side by
	// side splits the suite across, each with -steadystate.part=K/N
	// (testenv.Part), which the suite's Flags take.
	Parts int
}

// All are the catalog's suites, in its order.
var All = []Suite{
	{Name: "lostevents", Title: lostevents.Title, Register: lostevents.Register},
	{Name: "leader", Title: leader.Title, Register: leader.Register},
	{Name: "foreground", Title: foreground.Title, Register: foreground.Register},
	{Name: "finalizer", Title: finalizer.Title, Register: finalizer.Register},
	// Its eight specs each watch windows a controller must settle and
	// stay quiet in: about 100 s on the reference subject, three times
	// the next longest suite. In two parts, each runs the two clean runs
	// (30 s) and three of the six faulted runs (about 32 s).
	{Name: "reconcile", Title: reconcile.Title, Flags: reconcile.Flags, Long: true, Parts: 2},
}

// Explore is the exploration suite: seeded random fault schedules against
// one capability of a subject (`steadystate explore`). It is not one of
// the catalog's suites: conformance and the self-test never run it.
var Explore = Suite{Name: "explore", Title: explore.Title, Flags: explore.Flags}

// ControlPlane is the control plane's own suite: the stock ReplicaSet
// controller and garbage collector under the same faults, with no subject.
// It is not one of the catalog's suites (no subject file binds it);
// `steadystate e2e` runs it after them.
var ControlPlane = Suite{Name: "controlplane", Title: controlplane.Title, Register: controlplane.Register}

// E2E are the suites `steadystate e2e` (make e2e) runs, in order: the
// catalog's, then the control plane's.
func E2E() []Suite { return append(slices.Clone(All), ControlPlane) }

// Lookup finds a suite by its catalog name, the control plane's suite or
// the exploration suite.
func Lookup(name string) (Suite, bool) {
	name = renamed.CurrentSuite(name)
	for _, s := range []Suite{Explore, ControlPlane} {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range All {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}

// Names are the suites' names, for messages.
func Names() string {
	var names []string
	for _, s := range All {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// commonFlags adds the flags every suite takes to fs: the suites' own
// (testenv's) and -steadystate.progress-fd.
func commonFlags(fs *flag.FlagSet) (progressFD *int) {
	testenv.RegisterFlags(fs)
	return fs.Int("steadystate.progress-fd", 0, "file descriptor for progress events (JSON lines)")
}

// Flags adds to fs every flag a suite of this program takes (for help):
// those of every suite and each suite's own.
func Flags(fs *flag.FlagSet) {
	commonFlags(fs)
	for _, s := range append(E2E(), Explore) {
		if s.Flags != nil {
			s.Flags(fs)
		}
	}
}

// ErrFlags marks arguments Run could not parse.
var ErrFlags = errors.New("bad suite flags")

// Run runs the suite name in this process with args, Ginkgo's -ginkgo.*
// flags and the suites' -steadystate.* flags, plus
// -steadystate.progress-fd=N: a file descriptor the parent opened for
// testenv's progress events. It reports whether every spec passed. Ginkgo
// keeps one suite per process: Run may be called once.
func Run(name string, args []string) (passed bool, err error) {
	s, ok := Lookup(name)
	if !ok {
		return false, fmt.Errorf("%w: no suite %q: the suites are %s", ErrFlags, name, Names())
	}
	// Ginkgo's flags live on the command line's flag set; a bad flag is
	// returned, not printed with an exit.
	fs := flag.CommandLine
	fs.Init(fs.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	progressFD := commonFlags(fs)
	register := s.Register
	if s.Flags != nil {
		register = s.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return false, fmt.Errorf("%w: %v", ErrFlags, err)
	}
	if fs.NArg() > 0 {
		return false, fmt.Errorf("%w: suite %s takes flags only, not %q", ErrFlags, name, fs.Arg(0))
	}
	// The run's redaction key, out of the environment before the
	// controller or the cluster starts.
	if err := oracle.TakeKey(); err != nil {
		return false, err
	}
	if *progressFD > 0 {
		f := os.NewFile(uintptr(*progressFD), "progress")
		if f == nil {
			return false, fmt.Errorf("%w: -steadystate.progress-fd=%d is not an open file", ErrFlags, *progressFD)
		}
		// The events are this process's, not the controllers' and
		// clusters' it starts.
		syscall.CloseOnExec(*progressFD)
		defer f.Close()
		testenv.Progress = f
	}
	RegisterFailHandler(Fail)
	register()
	passed = RunSpecs(failer{}, s.Title)
	testenv.SendPeakMemory()
	return passed, nil
}

// Main runs the suite name as its package's test binary: each suite's
// *_suite_test.go is
//
//	func TestMain(*testing.M) { os.Exit(suites.Main("leader")) }
//
// so `go test` and the ginkgo command run the suite as
// `steadystate suite leader` does, with the command line's -ginkgo.* and
// -steadystate.* flags (the test binary's own -test.* flags are accepted
// and do nothing). It returns the exit code: 1 when a spec did not pass,
// 2 for bad flags.
func Main(name string) int {
	passed, err := Run(name, os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "suite %s: %v\n", name, err)
		return 2
	}
	if !passed {
		return 1
	}
	return 0
}

// failer is the GinkgoTestingT of a suite run outside `go test`: the
// verdict is RunSpecs's result and the reports, so a failure needs no
// other record.
type failer struct{}

func (failer) Fail() {}
