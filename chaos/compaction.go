package chaos

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/steadystate-dev/steadystate/internal/etcdgateway"
)

// EtcdCompaction compacts etcd up to its current revision, through etcd's
// JSON gateway. Every older resource version is then gone from storage: a
// watch or list the API server sends to etcd from such a version gets a
// real 410 Expired. A watch served by the API server's watch cache does not
// reach etcd, so for the real relist path run the API server with
// --watch-cache=false and cut the watch (WatchCut) after compacting.
type EtcdCompaction struct{}

// Name is etcd-compaction.
func (EtcdCompaction) Name() string { return "etcd-compaction" }

// Available needs etcd reachable, as on the local provider.
func (EtcdCompaction) Available(t Target) error {
	if t.Etcd == "" {
		return errors.New("etcd is not reachable from the harness (only the local provider exposes it)")
	}
	return nil
}

// Inject compacts and records the revision.
func (f EtcdCompaction) Inject(ctx context.Context, t Target) (Injection, error) {
	inj := Injection{Target: t.Etcd, Start: time.Now()}
	rev, err := etcdgateway.Revision(ctx, t.Etcd)
	if err != nil {
		return inj, err
	}
	if err := etcdgateway.Compact(ctx, t.Etcd, rev); err != nil {
		return inj, err
	}
	inj.End = time.Now()
	inj.Detail = map[string]string{"revision": strconv.FormatInt(rev, 10)}
	return inj, nil
}

// Recover has nothing to undo: compaction is permanent.
func (EtcdCompaction) Recover(context.Context, Target) error { return nil }
