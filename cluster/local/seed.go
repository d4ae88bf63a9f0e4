package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/steadystate-dev/steadystate/internal/etcdgateway"
	"github.com/steadystate-dev/steadystate/internal/freeport"
)

// A seeded store is an etcd data folder that holds exactly what
// kube-apiserver's two slow post-start hooks write on a new cluster: the
// bootstrap RBAC objects (rbac/bootstrap-roles) and the system
// PriorityClasses (scheduling/bootstrap-system-priority-classes). Each hook
// is a wait.Poll whose first try comes one second after it starts, so a
// cluster started on an empty store is not ready before about 1.6 s.
//
// The seed is made once per set of binaries by a start that really is
// ready (every /readyz check), then pruned to those keys: nothing that
// carries a cluster's identity (namespaces and their UIDs, the kubernetes
// Service, Leases, the client CA published in kube-system) survives, and
// the API server writes those anew on each start. A cluster started from
// the seed is ready when /readyz passes with only those two hooks
// excluded, since what they would write is already stored, and the system
// namespaces exist (the RBAC hook creates them on an empty store).

// seedFormat changes whenever what a seed holds changes, so older seeds
// are not used.
const seedFormat = "1"

// seededPrefixes are the etcd keys a seed keeps, sorted.
var seededPrefixes = []string{
	"/registry/clusterrolebindings/",
	"/registry/clusterroles/",
	"/registry/priorityclasses/",
	"/registry/rolebindings/",
	"/registry/roles/",
}

// seededHooks are the post-start hooks whose work a seed holds.
var seededHooks = []string{
	"poststarthook/rbac/bootstrap-roles",
	"poststarthook/scheduling/bootstrap-system-priority-classes",
}

// systemNamespaces are the namespaces a new cluster has once it is ready.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// seedKey names the seed of these binaries and API server flags: a
// rebuilt binary (another size or modification time) or other flags get
// a seed of their own.
func seedKey(b Binaries, apiServerArgs []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "format %s\nservice-cidr %s\n", seedFormat, serviceCIDR)
	for _, path := range []string{b.Etcd, b.APIServer} {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		info, err := os.Stat(abs)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %d\n", abs, info.Size(), info.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "args %q\n", apiServerArgs)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// seedFolder is where seeds are kept: in the cache, beside the built
// binaries. A seed takes about 0.5 MB of disk (its log is sparse).
func seedFolder() (string, error) {
	root, err := CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "kube", "seeds"), nil
}

// seed returns the folder of the seeded store for this cluster's binaries
// and flags, making it first when there is none. An empty path with no
// error means the cluster starts on an empty store (FreshStore, or no
// cache folder to keep a seed in).
func (c *Cluster) seed(ctx context.Context) (string, error) {
	if c.opts.FreshStore {
		return "", nil
	}
	dir, err := seedFolder()
	if err != nil {
		c.progress("no seeded store (%v): starting on an empty store", err)
		return "", nil
	}
	key, err := seedKey(c.bins, c.opts.APIServerArgs)
	if err != nil {
		return "", fmt.Errorf("name the seeded store: %w", err)
	}
	final := filepath.Join(dir, key)
	if _, err := os.Stat(filepath.Join(final, "member")); err == nil {
		return final, nil
	}
	err = os.MkdirAll(dir, 0o755)
	tmp := ""
	if err == nil {
		tmp, err = os.MkdirTemp(dir, key+".tmp-")
	}
	if err != nil {
		c.progress("cannot keep a seeded store (%v): starting on an empty store", err)
		return "", nil
	}
	t0 := time.Now()
	c.progress("making a seeded store for these binaries (once; %s)", final)
	defer os.RemoveAll(tmp)
	if err := c.makeSeed(ctx, filepath.Join(tmp, "data")); err != nil {
		return "", fmt.Errorf("make the seeded store: %w", err)
	}
	if err := copyStore(filepath.Join(tmp, "data"), filepath.Join(tmp, "seed")); err != nil {
		return "", fmt.Errorf("keep the seeded store: %w", err)
	}
	// Another start may have made the same seed meanwhile: either is good.
	if err := os.Rename(filepath.Join(tmp, "seed"), final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, "member")); statErr != nil {
			return "", fmt.Errorf("keep the seeded store: %w", err)
		}
	}
	c.progress("seeded store made in %s", time.Since(t0).Round(time.Millisecond))
	return final, nil
}

// makeSeed starts etcd and kube-apiserver on an empty store in dataDir,
// waits until every readiness check passes, stops the API server, prunes
// the store to seededPrefixes and stops etcd.
func (c *Cluster) makeSeed(ctx context.Context, dataDir string) error {
	ps, err := freeport.Pick(3)
	if err != nil {
		return err
	}
	p := ports{etcdClient: ps[0], etcdPeer: ps[1], apiServer: ps[2]}
	const etcdName, apiName = "seed-" + Etcd, "seed-" + APIServer
	etcd, err := c.start(etcdName, c.bins.Etcd, etcdArgs(dataDir, p))
	if err != nil {
		return err
	}
	defer c.stopProcess(etcdName)
	if err := waitHealthy(ctx, etcd, p.etcdClient, 30*time.Second, etcdHealth(p.etcdClient)); err != nil {
		return err
	}
	api, err := c.start(apiName, c.bins.APIServer, append(apiServerArgs(c.pki, p), c.opts.APIServerArgs...))
	if err != nil {
		return err
	}
	defer c.stopProcess(apiName)
	check, err := apiServerReady(fmt.Sprintf("https://127.0.0.1:%d", p.apiServer), c.pki, false)
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, api, p.apiServer, 60*time.Second, check); err != nil {
		return err
	}
	c.stopProcess(apiName)
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	if err := pruneStore(ctx, endpoint); err != nil {
		return err
	}
	if err := checkSeed(ctx, endpoint); err != nil {
		return err
	}
	c.stopProcess(etcdName)
	if !etcd.Exited() {
		return errors.New("etcd did not stop")
	}
	return nil
}

// pruneStore deletes every key outside seededPrefixes.
func pruneStore(ctx context.Context, endpoint string) error {
	from := "\x00"
	for _, prefix := range seededPrefixes {
		if err := etcdgateway.DeleteRange(ctx, endpoint, from, prefix); err != nil {
			return err
		}
		from = prefixEnd(prefix)
	}
	return etcdgateway.DeleteRange(ctx, endpoint, from, "\x00") // "\x00": every key from `from` on
}

// checkSeed fails unless the store holds the hooks' work.
func checkSeed(ctx context.Context, endpoint string) error {
	for _, prefix := range []string{"/registry/clusterroles/", "/registry/clusterrolebindings/", "/registry/priorityclasses/"} {
		n, err := etcdgateway.Count(ctx, endpoint, prefix, prefixEnd(prefix))
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("the API server was ready but wrote nothing under %s", prefix)
		}
	}
	return nil
}

// prefixEnd is the first key after every key that starts with prefix.
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	b[len(b)-1]++
	return string(b)
}

// copyStore copies the seed into dataDir, as etcd's own files (0600).
func copyStore(seed, dataDir string) error {
	return filepath.WalkDir(seed, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(seed, path)
		to := filepath.Join(dataDir, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		return copySparse(path, to)
	})
}

// copySparse copies a file, leaving a hole for each block of zeros: etcd
// preallocates its write-ahead log as 64 MB of zeros, so a seed and its
// copies take little room and copy quickly.
func copySparse(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	var size int64
	buf, zeros := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(in, buf)
		if n > 0 {
			if !bytes.Equal(buf[:n], zeros[:n]) {
				_, werr := out.WriteAt(buf[:n], size)
				if werr != nil {
					out.Close()
					return werr
				}
			}
			size += int64(n)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			out.Close()
			return err
		}
	}
	if err := out.Truncate(size); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
