package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/steadystate-dev/steadystate/internal/etcdgateway"
	"github.com/steadystate-dev/steadystate/internal/freeport"
)

func TestCopySparseKeepsContentAndLeavesHoles(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
	data := make([]byte, 4<<20+123) // zeros but a head, a middle and a short tail
	copy(data, "head")
	copy(data[2<<20:], "middle")
	data[len(data)-1] = 7
	if err := os.WriteFile(from, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copySparse(from, to); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(to)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("the copy differs from the original (%d bytes, want %d)", len(got), len(data))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(to, &st); err != nil {
		t.Fatal(err)
	}
	if used := st.Blocks * 512; used > 1<<20 {
		t.Errorf("the copy of a file of zeros takes %d bytes of disk, want holes (under 1 MB)", used)
	}
	if err := copySparse(from, to); err == nil {
		t.Error("copySparse overwrote an existing file")
	}
}

func TestPrefixEnd(t *testing.T) {
	if got := prefixEnd("/registry/roles/"); got != "/registry/roles0" {
		t.Errorf("prefixEnd = %q, want %q", got, "/registry/roles0")
	}
}

func TestSeedKeyChangesWithBinariesAndFlags(t *testing.T) {
	dir := t.TempDir()
	b := Binaries{Etcd: filepath.Join(dir, "etcd"), APIServer: filepath.Join(dir, "kube-apiserver")}
	for _, p := range []string{b.Etcd, b.APIServer} {
		if err := os.WriteFile(p, []byte("v1"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := func(args ...string) string {
		k, err := seedKey(b, args)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key()
	if key() != base {
		t.Fatal("the same binaries and flags give two keys")
	}
	if key("--watch-cache=false") == base {
		t.Error("other API server flags share the seed")
	}
	if err := os.WriteFile(b.APIServer, []byte("v2 rebuilt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if key() == base {
		t.Error("a rebuilt kube-apiserver shares the old binary's seed")
	}
	if _, err := seedKey(Binaries{Etcd: b.Etcd, APIServer: filepath.Join(dir, "missing")}, nil); err == nil {
		t.Error("a missing binary gives a key")
	}
}

// TestSeedHoldsOnlyTheHooksWork makes a seed in an empty cache and reads
// it with etcd: the bootstrap RBAC and PriorityClasses, nothing else.
func TestSeedHoldsOnlyTheHooksWork(t *testing.T) {
	b := requireBinaries(t)
	t.Setenv("STEADYSTATE_CACHE_DIR", t.TempDir())
	c := startCluster(t, Options{Name: "seed", BinDir: binDirOf(b), Controllers: []string{}})
	seed, err := c.seed(t.Context())
	if err != nil || seed == "" {
		t.Fatalf("seed = %q, %v; want the seed the start made", seed, err)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	if err := copyStore(seed, dataDir); err != nil {
		t.Fatal(err)
	}
	ps, err := freeport.Pick(2)
	if err != nil {
		t.Fatal(err)
	}
	p := ports{etcdClient: ps[0], etcdPeer: ps[1]}
	etcd, err := c.start("read-"+Etcd, c.bins.Etcd, etcdArgs(dataDir, p))
	if err != nil {
		t.Fatal(err)
	}
	if err := waitHealthy(t.Context(), etcd, p.etcdClient, 30*time.Second, etcdHealth(p.etcdClient)); err != nil {
		t.Fatal(err)
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	count := func(from, to string) int64 {
		n, err := etcdgateway.Count(t.Context(), endpoint, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	from := "\x00"
	for _, prefix := range seededPrefixes {
		if n := count(from, prefix); n != 0 {
			t.Errorf("the seed holds %d keys between %q and %q", n, from, prefix)
		}
		from = prefixEnd(prefix)
	}
	if n := count(from, "\x00"); n != 0 {
		t.Errorf("the seed holds %d keys from %q on", n, from)
	}
	for _, prefix := range []string{"/registry/clusterroles/", "/registry/clusterrolebindings/", "/registry/priorityclasses/", "/registry/roles/kube-system/"} {
		if count(prefix, prefixEnd(prefix)) == 0 {
			t.Errorf("the seed holds nothing under %s", prefix)
		}
	}
}

// TestSeededClustersHaveBootstrapObjectsAndOwnIdentities starts two
// clusters from one seed: each has what the skipped hooks would have
// written, and namespaces of its own.
func TestSeededClustersHaveBootstrapObjectsAndOwnIdentities(t *testing.T) {
	b := requireBinaries(t)
	var uids []string
	for _, name := range []string{"seeded-a", "seeded-b"} {
		c := startCluster(t, Options{Name: name, BinDir: binDirOf(b)})
		if seed, err := c.seed(t.Context()); err != nil || seed == "" {
			t.Fatalf("cluster %s did not start from a seed (%q, %v)", name, seed, err)
		}
		cfg, err := c.RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		kube := kubernetes.NewForConfigOrDie(cfg)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		for _, role := range []string{"cluster-admin", "system:kube-controller-manager", "admin"} {
			if _, err := kube.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{}); err != nil {
				t.Errorf("%s: clusterrole %s: %v", name, role, err)
			}
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, "system:kube-controller-manager", metav1.GetOptions{}); err != nil {
			t.Errorf("%s: clusterrolebinding system:kube-controller-manager: %v", name, err)
		}
		for _, pc := range []string{"system-node-critical", "system-cluster-critical"} {
			if _, err := kube.SchedulingV1().PriorityClasses().Get(ctx, pc, metav1.GetOptions{}); err != nil {
				t.Errorf("%s: priorityclass %s: %v", name, pc, err)
			}
		}
		ns, err := kube.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: namespace kube-system: %v", name, err)
		}
		uids = append(uids, string(ns.UID))
	}
	if uids[0] == uids[1] {
		t.Errorf("two clusters started from one seed share kube-system's UID %s", uids[0])
	}
}

// A cache where no seed can be kept starts the cluster on an empty store
// and says so.
func TestNoSeedWhereTheCacheCannotHoldOne(t *testing.T) {
	b := requireBinaries(t)
	file := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STEADYSTATE_CACHE_DIR", file)
	var progress bytes.Buffer
	startCluster(t, Options{Name: "no-seed", BinDir: binDirOf(b), Progress: &progress})
	for _, want := range []string{"cannot keep a seeded store", "from an empty store"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress does not say %q:\n%s", want, progress.String())
		}
	}
}
