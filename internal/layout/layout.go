// Package layout is the module's folders, each with what it holds and its
// floor: a folder imports only folders on lower floors, so the imports read
// from the bottom (the leaves, the cluster, the faults, the judge) to the
// top (the run drivers, the suites, the commands). Its test checks the imports
// `go list` reports against the floors, and docs/design.md's layout table
// is generated from Folders (`make docs`).
package layout

import (
	"fmt"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/splice"
)

// Folder is one folder of the module.
type Folder struct {
	// Path is the folder, relative to the module's root: a top-level folder
	// or one below it (then Floor is its top-level folder's).
	Path string
	// Floor is the folder's height: it may import only folders whose floor
	// is lower.
	Floor int
	// Holds says what the folder holds, in the layout table's words.
	Holds string
}

// Folders is every folder with Go code at the top level, lowest floor
// first, and some below them worth a row of their own.
var Folders = []Folder{
	{Path: "internal", Floor: 0,
		Holds: "the small leaves the rest builds on, which nothing outside the project needs and which import no other folder of the project: `config` (every environment variable, read once per process, each default written once), `cli` (the command's flags, help and usage errors), `pki` (test CA), `proc` (child processes, and the garbage collector's target the suite processes run with unless the Go runtime's own `GOGC` is set), `freeport` (loopback ports below the kernel's ephemeral range, so a process restarted on its port finds it free, and which process holds a port, so a start answered by another process is seen), `victim` (informers for fault tests), `jsonl` (the append-only JSON-lines file the proxies and histories spool to), `etcdgateway` (etcd's JSON gateway: revision, compaction, key ranges), `atomicfile` (a file written whole or not at all), `heartbeat` (the still-running lines' ticker), `progress` (the events a suite process sends the runner that prints them, so that the runners need no test framework), `layout` (this table: every folder's floor, checked against the imports), `splice` (a generated block written between two marker lines of a page)"},
	{Path: "fixtures", Floor: 0,
		Holds: "embedded manifests (reference CRDs and RBAC, the conformance Job), built-in subject files, and a server-side applier; `upstream/` holds the upstream cells' subject files, set-up manifests and the controller-runtime wrapper module"},
	{Path: "docs", Floor: 0,
		Holds: "the pages (their index is `docs/README.md`), the result sets the result tables are generated from (`results/`), the findings' pages (`findings/`); its test checks that every link between pages resolves, anchors included, and that none leads outside the repository"},
	{Path: "cluster", Floor: 1,
		Holds: "providers: `local`, `kind`, `existing`; `local/localtest` and `kind/kindtest` start the clusters of tests that need one; `image` (an image FROM scratch from one static binary, as an archive a provider loads); `standing` (the cluster `cluster up` keeps up by hand, found by its state file); `shared` (one cluster the processes of a run share through a folder: its owner starts it and tears it down once its guests have left)"},
	{Path: "chaos", Floor: 1,
		Holds: "faults, timeline, a replica's host (a local process or a pod, what process faults act on); `proxy` (the fault proxy), `chaosmesh` (the adapter; `chaosmesh/nsexec`, the stand-in for Chaos Mesh's nsexec in the chaos-daemon image its kind test assembles), `schedule` (exploration's fault schedules: drawn from a seed, read strictly from a file, shrunk by delta debugging; the capabilities and those exploration drives), `runner` (a subject's replicas, each behind its own fault proxy: local processes, or pods with the proxy as a sidecar)"},
	{Path: "judge", Floor: 2,
		Holds: "the judge and what it reads, from the bottom up: `verdict`, `catalog` and `oracle`, then `evidence`, then the judging core itself. The package `judge` holds every judgement that is a pure function of evidence, used live by the suites and offline by `validate`, `verify`, the steps and the report page"},
	{Path: "judge/verdict", Floor: 2,
		Holds: "property records, spec outcomes, reading them back from Ginkgo's JSON report"},
	{Path: "judge/catalog", Floor: 2,
		Holds: "every property (id, stage, sentence) and every seeded bug (suite, properties it must break, origin)"},
	{Path: "judge/oracle", Floor: 2,
		Holds: "histories (timestamped watch records, spooled), the merged history, convergence within T and stable for W, validation of a set of checks"},
	{Path: "judge/evidence", Floor: 2,
		Holds: "one spec's evidence: collected from its live sources, kept as `evidence.json`, rendered as `history.txt`"},
	{Path: "subjectfile", Floor: 3,
		Holds: "the subject file format: versioned YAML, strict decoding, validation with one line per mistake"},
	{Path: "steps", Floor: 3,
		Holds: "steadystate's faults and oracle as e2e-framework feature steps (`Record`, `Inject`, `Converges`), with an example test"},
	{Path: "reports", Floor: 3,
		Holds: "JUnit (written and summarised), the self-test matrix, the conformance summary; `bundle` (results bundles: write, check, extract); `html` (the report page with timelines)"},
	{Path: "reference", Floor: 3,
		Holds: "reference controllers (`workload`, `capi`, `mover`, `composite`, `external`, `leader`, `stack`), their API and wiring; `reftest` runs their directed tests"},
	{Path: "scaffold", Floor: 4,
		Holds: "a drafted subject file for a controller nobody bound yet, from a kubebuilder layout or CRD and sample files (`steadystate init`)"},
	{Path: "runs", Floor: 4,
		Holds: "the run drivers: each runs suites as child processes of `steadystate` (`steadystate suite NAME`) and reads what they wrote, so none imports `suites/`"},
	{Path: "runs/matrix", Floor: 4,
		Holds: "the matrix runner: each cell's suite in a child process of `steadystate` (`steadystate suite NAME`), in a fresh folder with its own cluster, judged from the report it writes; progress, the printed matrix, `matrix.json` and the report page"},
	{Path: "runs/upstream", Floor: 4,
		Holds: "the upstream releases (how each is built from the module proxy) and the upstream matrix's cells"},
	{Path: "runs/conformance", Floor: 4,
		Holds: "a conformance run of one subject file: its cells, the subject's versions, the summary and the results bundle"},
	{Path: "runs/exploration", Floor: 4,
		Holds: "an exploration run against one subject: the exploration suite as a cell of one, its replays and shrinks, the findings and the command's result; `tally` (an exploration run's specs told apart from its report: reference runs and schedules, each one's evidence and kept schedule, its steps not done, and the names the suite gives them, so that the summary and the zoo read a run without the suite), `shrink` (the shrink policy: when a candidate counts, confirmed and discriminated against the correct mode, and the walk back to the steadiest schedule), `phases` (where a schedule's time went: the five phases the suite marks in its report, read back per schedule and summarised over a run). Neither the run nor these import `suites/`: they read the suite's report"},
	{Path: "runs/rejudge", Floor: 4,
		Holds: "verdicts judged again offline from the evidence: a folder's (`validate`), a bundle's (`verify`)"},
	{Path: "runs/zoo", Floor: 4,
		Holds: "the zoo: conform and verify over every subject file of a folder, a number of times each, the matrix printed; the hunt and the kept findings' replays, and their command, `steadystate zoo` (behind `make zoo`, `make hunt`, `make zoo-repro`)"},
	{Path: "runs/campaign", Floor: 4,
		Holds: "an exploration campaign larger than one machine: an Indexed Job whose indices each explore a range of seeds, and the gathering of their folders into one bundle (`steadystate campaign`)"},
	{Path: "suites", Floor: 5,
		Holds: "the Ginkgo suites, one per bug class plus `controlplane` and `explore` (exploration: one spec per schedule, driving a capability through the suites' own drivers), each declared by its `Register` and compiled into `steadystate` (package `suites` runs one per process); and what only they use: `testenv` (one run's environment and settings, and `Spec`, the state of one spec: its evidence and `Verify`), `subject` (capabilities, choosing and starting subjects; the one package that imports the reference controllers), `e2e` (every suite of `make e2e`, each in a child process, their reports merged)"},
	{Path: "cmd", Floor: 6,
		Holds: "the commands, each wiring only: its flags, and calls into the folders below"},
	{Path: "cmd/steadystate", Floor: 6,
		Holds: "the command's flags and wiring: `init`, `cluster up/down/status`, `e2e`, `suite`, `conform`, `explore`, `campaign`, `zoo`, `selftest`, `upstream`, `upstream-bins`, `kube-bins`, `verify`, `validate`, `results`, `report`, `junit`, `html`, `catalog`"},
	{Path: "cmd/refctl", Floor: 6,
		Holds: "the reference controllers' command"},
	{Path: "cmd/faultproxy", Floor: 6,
		Holds: "the fault proxy as a pod sidecar"},
	{Path: "hack", Floor: 6,
		Holds: "build scripts (`kind-image.sh` and `kind/`, `docker-engine.sh`, `with-docker.sh`, `kind-run.sh`, `images.sh`, `install-test.sh`, `workflow-test.sh`, `zoo-bins.sh`, which builds the zoo's operators from the Go module proxy, `cpu-quota.sh`, which runs a command with a few cores' CPU time at most, and `cpu-time.sh`, which prints the CPU time a command and everything it started used); `hack/tools`, a module for controller-gen, actionlint and `modproxy` (a file-system module proxy for the install test)"},
}

// FloorOf returns the floor of the top-level folder top, and whether
// Folders names it.
func FloorOf(top string) (int, bool) {
	for _, f := range Folders {
		if f.Path == top {
			return f.Floor, true
		}
	}
	return 0, false
}

// Page is the page whose layout table Splice writes.
const Page = "docs/design.md"

const (
	begin = "<!-- layout -->\n"
	end   = "<!-- /layout -->"
)

// Table renders Folders as the layout table of Page.
func Table() string {
	var b strings.Builder
	b.WriteString("| floor | folder | holds |\n|---|---|---|\n")
	for _, f := range Folders {
		path := f.Path
		if !strings.Contains(path, "/") {
			path += "/"
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", f.Floor, path, f.Holds)
	}
	return b.String()
}

// Splice returns page with the table between its layout markers replaced by
// Table(). An error says which marker is missing.
func Splice(page []byte) ([]byte, error) {
	return splice.Between(page, begin, end, Table())
}

// Layers orders the packages inside one top-level folder the way Folders
// orders the folders: a package of the folder imports only packages of
// the folder named before it. Packages of the folder it does not name may
// import any of them.
var Layers = map[string][]string{
	"judge": {"judge/verdict", "judge/catalog", "judge/oracle", "judge/evidence", "judge"},
}
