package etcdgateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Revision is etcd's current revision at endpoint (http://host:port).
func Revision(ctx context.Context, endpoint string) (int64, error) {
	var out struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := post(ctx, endpoint+"/v3/kv/range", map[string]any{"key": b64("/"), "limit": 1}, &out); err != nil {
		return 0, fmt.Errorf("read etcd's revision: %w", err)
	}
	return strconv.ParseInt(out.Header.Revision, 10, 64)
}

// Compact compacts the store up to rev, physically.
func Compact(ctx context.Context, endpoint string, rev int64) error {
	if err := post(ctx, endpoint+"/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil); err != nil {
		return fmt.Errorf("compact etcd at revision %d: %w", rev, err)
	}
	return nil
}

// DeleteRange deletes the keys from key up to end, not included; end
// "\x00" means every key from key on.
func DeleteRange(ctx context.Context, endpoint, key, end string) error {
	if err := post(ctx, endpoint+"/v3/kv/deleterange", map[string]any{"key": b64(key), "range_end": b64(end)}, nil); err != nil {
		return fmt.Errorf("delete etcd keys [%q, %q): %w", key, end, err)
	}
	return nil
}

// Count is how many keys lie from key up to end, not included.
func Count(ctx context.Context, endpoint, key, end string) (int64, error) {
	var out struct {
		Count string `json:"count"`
	}
	if err := post(ctx, endpoint+"/v3/kv/range", map[string]any{"key": b64(key), "range_end": b64(end), "count_only": true}, &out); err != nil {
		return 0, fmt.Errorf("count etcd keys [%q, %q): %w", key, end, err)
	}
	if out.Count == "" {
		return 0, nil // the gateway leaves a zero count out
	}
	return strconv.ParseInt(out.Count, 10, 64)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func post(ctx context.Context, url string, in, out any) error {
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
