package testenv

import (
	"flag"
	"strconv"
	"testing"
)

// TestCellFlagsReplaceTheEnvironment: a cell flag given, even empty,
// replaces its variable; one not given leaves the variable's value.
func TestCellFlagsReplaceTheEnvironment(t *testing.T) {
	t.Setenv("SUBJECT", "workload")
	t.Setenv("SUBJECT_BUG", "no-expectations")
	t.Setenv("SUBJECT_FILE", "/from/env.yaml")
	t.Setenv("ARTIFACTS", "/env/artifacts")
	t.Setenv("REFCTL_BINARY", "/env/refctl")
	t.Setenv("KIND_CLUSTER_NAME", "from-env")
	t.Cleanup(func() {
		cellFlags = cellFlagValues{}
	})
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse([]string{"-steadystate.subject=", "-steadystate.bug=", "-steadystate.subject-file=/cell/subject.yaml", "-steadystate.artifacts=/cell/1", "-steadystate.kind-cluster=steadystate-selftest-2", "-steadystate.cluster-name=leader", "-steadystate.shared-cluster=/cell/cluster"}); err != nil {
		t.Fatal(err)
	}
	c := ConfigFromEnv()
	applyCellFlags(&c)
	want := map[string][2]string{
		"subject": {c.Subject, ""}, "bug": {c.Bug, ""}, "subject file": {c.SubjectFile, "/cell/subject.yaml"},
		"artifacts": {c.Artifacts, "/cell/1"}, "cluster artifacts": {c.Cluster.Artifacts, "/cell/1"},
		"kind cluster": {c.Cluster.Kind.Name, "steadystate-selftest-2"}, "refctl (not given)": {c.Refctl, "/env/refctl"},
		"local cluster":  {c.Cluster.LocalOptions("").Name, "leader"},
		"shared cluster": {c.Cluster.Share.Dir, "/cell/cluster"}, "shared cluster's owner (not given)": {strconv.FormatBool(c.Cluster.Share.Owner), "false"},
	}
	for what, v := range want {
		if v[0] != v[1] {
			t.Errorf("%s = %q, want %q", what, v[0], v[1])
		}
	}
}
