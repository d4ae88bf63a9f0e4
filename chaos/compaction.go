package chaos

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
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
	rev, err := etcdRevision(ctx, t.Etcd)
	if err != nil {
		return inj, err
	}
	if err := etcdPost(ctx, t.Etcd+"/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil); err != nil {
		return inj, fmt.Errorf("compact etcd at revision %d: %w", rev, err)
	}
	inj.End = time.Now()
	inj.Detail = map[string]string{"revision": strconv.FormatInt(rev, 10)}
	return inj, nil
}

// Recover has nothing to undo: compaction is permanent.
func (EtcdCompaction) Recover(context.Context, Target) error { return nil }

func etcdRevision(ctx context.Context, endpoint string) (int64, error) {
	var out struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	key := base64.StdEncoding.EncodeToString([]byte("/"))
	if err := etcdPost(ctx, endpoint+"/v3/kv/range", map[string]any{"key": key, "limit": 1}, &out); err != nil {
		return 0, fmt.Errorf("read etcd's revision: %w", err)
	}
	return strconv.ParseInt(out.Header.Revision, 10, 64)
}

func etcdPost(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", url, resp.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}
