package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/runs/campaign"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/runs/zoo"
	"github.com/steadystate-dev/steadystate/suites/e2e"
)

const usage = `usage:
  steadystate cluster up [--name NAME]       start a local cluster (runs until Ctrl-C or 'cluster down')
  steadystate cluster down [--name NAME]     stop a cluster started by 'cluster up'
  steadystate cluster status [--name NAME]   show whether a cluster is up and how to reach it
  steadystate report [--fail-on-gaps] FILE   summarise a run: report.json by verdict, junit.xml by status
  steadystate junit REPORT.json OUT.xml      write JUnit for CI tools (one testcase per spec, junit-10.xsd)
  steadystate html DIR [OUT]                 write a run's report page (DIR/report.html): specs, timelines
  steadystate selftest                       run every suite against every reference subject mode
                      [--suites S,...] [--subjects S,...] [--modes M,...] [--repeat N] [--parallel N]
  steadystate conform --subject FILE         run every suite the subject's capabilities allow; write a results bundle
                      [--provider local|kind|existing] [--out BUNDLE.tar.gz] [--capabilities C,...] [--fail-on-gaps]
  steadystate explore --subject NAME|FILE    run seeded random fault schedules against a subject; keep each
                      [--bug BUG] [--budget 10m] [--seed N] [--capability C]   schedule that breaks a property
                      [--first | --parallel N [--shared-cluster]] [--pattern P]
                      [--replay SCHEDULE.yaml [--repeat N] [--shrink [--confirm N]]]
  steadystate campaign job --indices N       print an exploration campaign as a Kubernetes Indexed Job, each index
                      [--seeds-per-index K] [--seed FIRST] [--budget 10m]   a range of seeds
                      [--capability C] [--name NAME] [--parallelism P] [--claim PVC] [--image IMAGE]
  steadystate campaign gather --indices N DIR   bundle every index's results; names the missing ones
                      [--name NAME] [--out campaign.tar.gz]
  steadystate suite NAME [FLAGS]             run one suite in this process (-ginkgo.*, -steadystate.* flags)
  steadystate e2e [--artifacts DIR] [--parallel N] [GINKGO FLAGS] [-- SUITE FLAGS]
                                             run every suite (make e2e), each in a child process; one report.json
  steadystate verify --digest SHA256 | --no-digest [--fail-on-gaps] BUNDLE
                                             check a bundle's sums (against conform's printed digest)
                                             and re-judge every verdict offline from its evidence
  steadystate init [--out FILE] DIR          draft a subject file binding reconciledObjects from a kubebuilder project
                      [--no-build] | --command PROGRAM --sample FILE... [--crd FILE...] [--name NAME]
  steadystate results --name NAME --command CMD RUN   keep a matrix run as a result set of docs/results.md
                      [--dir DIR] [--commit SHA]
  steadystate catalog                        print the bug catalog and the properties as Markdown
  steadystate validate DIR                   re-judge the evidence.json files below DIR offline
  steadystate kube-bins                      build etcd, kube-apiserver, kube-controller-manager, kube-scheduler
                                             of KUBE_VERSION from source, and kwok (simulated nodes)
  steadystate upstream-bins [RELEASE...]     build the upstream releases from the Go module proxy
  steadystate upstream                       run the upstream releases with and without each bug
                      [--cells C,...] [--repeat N] [--parallel N]
  steadystate zoo run                        conform and verify over the zoo's subject files; print the matrix
                      [--runs N] [--subjects A,B] [--dir DIR] [--capabilities C,...] [--parallel N] [--nodes on] [--artifacts DIR]
  steadystate zoo hunt                       explore each subject file in turn; print the hunt's table and findings
                      [--budget 30m] [--seed N] [--capability C] [--pattern P] [--parallel N] [--shared-cluster on]
                      [--subjects A,B] [--dir DIR] [--nodes on] [--artifacts DIR]
  steadystate zoo repro --finding NAME       replay a kept finding; print how many replays broke which property
                      [--findings DIR] [--nodes on] [--artifacts DIR]
  steadystate zoo timeline EVIDENCE.json     write a recorded evidence's timeline as SVG to stdout

Exit codes (docs/conformance.md#exit-codes): 0 passed (with or without gaps), 1 a finding (a
property broke; for selftest and upstream a bug missed, a wrong property or a false alarm; it wins
over an error beside it), 2 a usage mistake or input refused before anything ran, 3 a harness error
or nothing judged (a spec's error, evidence missing, a bundle that does not verify, an interrupted
run), 4 a pass with gaps under --fail-on-gaps.

Environment: PROVIDER, KUBE_VERSION, KUBE_BIN_DIR, ARTIFACTS, UPSTREAM_DIR; the defaults
of selftest's flags: SELFTEST_SUITES, SELFTEST_SUBJECTS, SELFTEST_MODES, SELFTEST_REPEAT,
SELFTEST_PARALLEL;
of upstream's: UPSTREAM_CELLS, UPSTREAM_REPEAT, UPSTREAM_PARALLEL (see docs/settings.md).
'steadystate COMMAND -h' prints a command's usage and flags.
`

// errUsage marks errors caused by how the command was called.
var errUsage = cli.ErrUsage

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, config.Process(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exit(err, os.Stderr))
}

// exit says err on stderr (the usage after a usage mistake; nothing after
// a suite's failure, which its output said) and is its exit code, the one
// mapping of the commands' errors to codes (cli.ExitCode).
func exit(err error, stderr io.Writer) int {
	if err == nil {
		return cli.ExitPassed
	}
	if !errors.Is(err, e2e.ErrSuiteFailed) {
		fmt.Fprintf(stderr, "steadystate: %v\n", err)
	}
	if errors.Is(err, errUsage) {
		fmt.Fprint(stderr, "\n"+usage)
	}
	return cli.ExitCode(err)
}

// run runs the command args names with the settings cfg, read once from
// the environment. -h or --help on a command prints its usage and flags
// to stdout and succeeds.
func run(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, cfg, args, stdout, stderr)
	if !errors.Is(err, flag.ErrHelp) {
		return err
	}
	var h cli.HelpRequest
	if errors.As(err, &h) {
		fmt.Fprint(stdout, h.Text)
	} else {
		fmt.Fprint(stdout, cli.Section(usage, args[0]))
	}
	return nil
}

// takeNoFlags are the commands that parse no flags: their -h is answered
// before they run (the others answer it as they parse their flags).
var takeNoFlags = []string{"html", "junit", "validate", "catalog", "kube-bins", "upstream-bins"}

func dispatch(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command given", errUsage)
	}
	if slices.Contains(takeNoFlags, args[0]) && cli.WantsHelp(args[1:]) {
		return flag.ErrHelp
	}
	switch args[0] {
	case "cluster":
		return clusterCommand(ctx, cfg, args[1:], stdout, stderr)
	case "report":
		return reportCommand(args[1:], stdout)
	case "html":
		return htmlCommand(args[1:], stdout)
	case "junit":
		return junitCommand(args[1:], stdout)
	case "selftest":
		return matrix.Selftest(ctx, cfg, args[1:], stdout, stderr)
	case "suite":
		return e2e.SuiteCommand(args[1:])
	case "e2e":
		return e2e.Command(ctx, cfg, args[1:], stdout, stderr)
	case "conform":
		return conformCommand(ctx, cfg, args[1:], stdout, stderr)
	case "explore":
		return exploreCommand(ctx, cfg, args[1:], stdout, stderr)
	case "campaign":
		return campaign.Command(ctx, cfg, args[1:], stdout, stderr)
	case "verify":
		return verifyCommand(args[1:], stdout)
	case "validate":
		return validateCommand(args[1:], stdout)
	case "upstream":
		return upstreamCommand(ctx, cfg, args[1:], stdout, stderr)
	case "init":
		return initCommand(ctx, args[1:], stdout, stderr)
	case "results":
		return resultsCommand(args[1:], stdout)
	case "kube-bins":
		return kubeBinsCommand(ctx, cfg, args[1:], stdout, stderr)
	case "upstream-bins":
		return upstreamBinsCommand(ctx, cfg, args[1:], stdout, stderr)
	case "zoo":
		return zoo.Command(ctx, cfg, args[1:], stdout, stderr)
	case "catalog":
		if len(args) > 1 {
			return fmt.Errorf("%w: catalog takes no arguments", errUsage)
		}
		reports.WriteCatalog(stdout)
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
}
