package testenv

import (
	"flag"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// given is a string flag that remembers whether it was given: a given
// flag, even empty, replaces the environment's variable.
type given struct {
	value string
	set   bool
}

func (g *given) String() string {
	if g == nil {
		return ""
	}
	return g.value
}

func (g *given) Set(s string) error {
	g.value, g.set = s, true
	return nil
}

// cellFlags name the cell a run is: a parent that runs suites in child
// processes (the matrix commands) passes the cell so, not through the
// child's environment.
var cellFlags cellFlagValues

// cellFlagValues are the cell's flags as given.
type cellFlagValues struct {
	subject, bug, subjectFile, artifacts, refctl, kindCluster, clusterName given
	// sharedCluster is the folder of a cluster the run's processes
	// share; sharedOwner says this one starts it.
	sharedCluster string
	sharedOwner   bool
}

// registerCellFlags adds the cell's flags to fs, each overriding the
// environment variable it names.
func registerCellFlags(fs *flag.FlagSet) {
	fs.Var(&cellFlags.subject, "steadystate.subject", "a built-in subject's `name` (instead of SUBJECT)")
	fs.Var(&cellFlags.bug, "steadystate.bug", "a reference controller's seeded `bug` (instead of SUBJECT_BUG)")
	fs.Var(&cellFlags.subjectFile, "steadystate.subject-file", "a subject `file` (instead of SUBJECT_FILE)")
	fs.Var(&cellFlags.artifacts, "steadystate.artifacts", "the `folder` of the run's artifacts (instead of ARTIFACTS)")
	fs.Var(&cellFlags.refctl, "steadystate.refctl", "a prebuilt refctl `program` (instead of REFCTL_BINARY)")
	fs.Var(&cellFlags.kindCluster, "steadystate.kind-cluster", "the `name` of the kind cluster to create (instead of KIND_CLUSTER_NAME)")
	fs.Var(&cellFlags.clusterName, "steadystate.cluster-name", "the `name` of the local cluster to create, its logs in ARTIFACTS/cluster-NAME (default steadystate)")
	fs.StringVar(&cellFlags.sharedCluster, "steadystate.shared-cluster", "", "a `folder` through which the processes of one run share one cluster: the one with -steadystate.shared-cluster-owner starts it, the others use it")
	fs.BoolVar(&cellFlags.sharedOwner, "steadystate.shared-cluster-owner", false, "this process starts the cluster shared through -steadystate.shared-cluster, and tears it down once the others have left")
}

// applyCellFlags puts the cell's flags that were given into c.
func applyCellFlags(c *Config) {
	for _, f := range []struct {
		flag *given
		dst  *string
	}{
		{&cellFlags.subject, &c.Subject}, {&cellFlags.bug, &c.Bug}, {&cellFlags.subjectFile, &c.SubjectFile},
		{&cellFlags.artifacts, &c.Artifacts}, {&cellFlags.refctl, &c.Refctl}, {&cellFlags.kindCluster, &c.Cluster.Kind.Name},
		{&cellFlags.clusterName, &c.Cluster.Name},
	} {
		if f.flag.set {
			*f.dst = f.flag.value
		}
	}
	if c.Artifacts == "" {
		c.Artifacts = config.DefaultArtifacts
	}
	c.Cluster.Artifacts = c.Artifacts
	c.Cluster.Share = cluster.Share{Dir: cellFlags.sharedCluster, Owner: cellFlags.sharedOwner}
}
