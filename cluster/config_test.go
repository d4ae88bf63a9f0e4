package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster/existing"
	"github.com/steadystate-dev/steadystate/cluster/kind"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/config"
)

func TestNewPicksTheProvider(t *testing.T) {
	for name, want := range map[string]any{"": &local.Provider{}, Local: &local.Provider{}, Existing: &existing.Provider{}, Kind: &kind.Provider{}} {
		p, err := New(Config{Provider: name})
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if got, want := typeName(p), typeName(want); got != want {
			t.Errorf("New(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestNewRejectsUnknownProviders(t *testing.T) {
	_, err := New(Config{Provider: "minikube"})
	if err == nil || !strings.Contains(err.Error(), `PROVIDER="minikube" is not a cluster provider: use one of local, kind, existing`) {
		t.Fatalf("err = %v", err)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func TestLocalOptionsCarryEverySetting(t *testing.T) {
	cfg := ConfigFrom(config.From(func(k string) string {
		return map[string]string{"KUBE_VERSION": "v1.36.3", "KUBE_BIN_DIR": "/bins", "ARTIFACTS": "/art", "KCM_CONTROLLERS": "namespace-controller",
			"LOCAL_APISERVER_ARGS": " --profiling=true  --v=2 "}[k]
	}))
	o := cfg.LocalOptions("up")
	if o.Name != "up" || o.KubeVersion != "v1.36.3" || o.BinDir != "/bins" || o.LogDir != "/art/cluster-up" ||
		len(o.Controllers) != 1 || o.Controllers[0] != "namespace-controller" ||
		strings.Join(o.APIServerArgs, " ") != "--profiling=true --v=2" {
		t.Errorf("LocalOptions = %+v", o)
	}
	if o := (Config{}).LocalOptions(""); o.Name != "steadystate" || o.LogDir != "_artifacts/cluster-steadystate" {
		t.Errorf("defaults: %+v", o)
	}
}

func TestLocalOptionsCarryTheSimulatedNodes(t *testing.T) {
	for _, tc := range []struct {
		nodes   string
		want    int
		noNodes bool
	}{{"", 0, true}, {"off", 0, true}, {"on", local.DefaultNodes, false}, {"5", 5, false}, {"0", 0, true}} {
		o := Config{Nodes: tc.nodes, PodStages: "/stages.yaml"}.LocalOptions("")
		if o.Nodes != tc.want || o.NoNodes != tc.noNodes || o.PodStages != "/stages.yaml" {
			t.Errorf("LOCAL_NODES=%q: Nodes=%d NoNodes=%v PodStages=%q, want %d %v /stages.yaml", tc.nodes, o.Nodes, o.NoNodes, o.PodStages, tc.want, tc.noNodes)
		}
	}
}

func TestNewRejectsABadNodeCount(t *testing.T) {
	for _, bad := range []string{"two", "-1", "1.5"} {
		_, err := New(Config{Nodes: bad})
		want := fmt.Sprintf("LOCAL_NODES=%q is not a number of simulated nodes", bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LOCAL_NODES=%q: err = %v, want it to contain %q", bad, err, want)
		}
		if o := (Config{Nodes: bad}).LocalOptions(""); o.Nodes >= 0 {
			t.Errorf("LOCAL_NODES=%q gives Nodes=%d, which local.Start would accept", bad, o.Nodes)
		}
	}
}

// A subject whose pods must run gets simulated nodes on the local
// cluster unless LOCAL_NODES says how many, and is refused when LOCAL_NODES
// turns them off: its pods would stay Pending and its convergence
// properties break for want of a kubelet, not for the controller. One that
// does not say so, but whose objects make pods, is warned of on a cluster
// without nodes.
func TestNodesFor(t *testing.T) {
	for _, tc := range []struct {
		provider, nodes string
		needs           bool
		maker           string
		want            bool
		count           int
		err, warning    string
	}{
		{Local, "", true, "", true, local.DefaultNodes, "", ""},
		{"", "", true, "", true, local.DefaultNodes, "", ""},
		{Local, "on", true, "", false, local.DefaultNodes, "", ""},
		{Local, "3", true, "", false, 3, "", ""},
		{Local, "off", true, "", false, 0, "LOCAL_NODES=off gives the local cluster none: unset LOCAL_NODES or set it to on", ""},
		{Local, "0", true, "", false, 0, "LOCAL_NODES=0 gives the local cluster none", ""},
		{Local, "two", true, "", false, 0, `LOCAL_NODES="two" is not a number of simulated nodes`, ""},
		{Local, "", false, "", false, 0, "", ""},
		{Local, "off", false, "", false, 0, "", ""},
		{Local, "", false, "Deployment/web", false, 0, "", "Deployment/web makes pods, which stay Pending on this local cluster without nodes; if they must run for it to become ready, set run.needsNodes: true in s.yaml"},
		{Local, "on", false, "Deployment/web", false, local.DefaultNodes, "", ""},
		{Kind, "", true, "", false, 0, "", ""},
		{Existing, "off", true, "Deployment/web", false, 0, "", ""},
	} {
		got, err := NodesFor("s.yaml", tc.provider, tc.nodes, tc.needs, tc.maker)
		switch {
		case tc.err == "" && err != nil, tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s, LOCAL_NODES=%q, needsNodes %v: err = %v, want %q", tc.provider, tc.nodes, tc.needs, err, tc.err)
		case got.TurnOn != tc.want || got.Count != tc.count:
			t.Errorf("%s, LOCAL_NODES=%q, needsNodes %v: turn on %v, %d nodes; want %v, %d", tc.provider, tc.nodes, tc.needs, got.TurnOn, got.Count, tc.want, tc.count)
		case tc.warning == "" && got.Warning != "", tc.warning != "" && !strings.Contains(got.Warning, tc.warning):
			t.Errorf("%s, LOCAL_NODES=%q, %q: warning %q, want %q", tc.provider, tc.nodes, tc.maker, got.Warning, tc.warning)
		case got.TurnOn && !strings.Contains(got.Said, "subject file s.yaml needs nodes that run its pods (run.needsNodes): the local cluster gets simulated nodes (LOCAL_NODES=on)"):
			t.Errorf("%s, LOCAL_NODES=%q: said %q", tc.provider, tc.nodes, got.Said)
		}
	}
}
