package external

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrNotFound means the external resource does not exist.
var ErrNotFound = errors.New("external resource not found")

// ErrExists means another owner holds the name; the error carries it.
type ErrExists struct{ Owner string }

func (e ErrExists) Error() string { return "external resource exists, owned by " + e.Owner }

// Client talks to the fake external system at Base.
type Client struct {
	Base string
	HTTP *http.Client
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.Base, "/")+path, rd)
	if err != nil {
		return 0, err
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("external system: %w", err)
	}
	defer resp.Body.Close()
	// 409 carries the current owner in its body, like a success.
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusConflict {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return resp.StatusCode, fmt.Errorf("external system: %s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil && err != io.EOF {
			return resp.StatusCode, fmt.Errorf("external system: %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

func resourcePath(name, owner string) string {
	return "/resources/" + url.PathEscape(name) + "?owner=" + url.QueryEscape(owner)
}

// Observe returns the resource, or ErrNotFound.
func (c *Client) Observe(ctx context.Context, name, owner string) (Resource, error) {
	var res Resource
	code, err := c.do(ctx, http.MethodGet, resourcePath(name, owner), nil, &res)
	if code == http.StatusNotFound {
		return res, ErrNotFound
	}
	return res, err
}

// Create makes the resource owned by owner, or returns ErrExists.
func (c *Client) Create(ctx context.Context, name, owner string) error {
	var res Resource
	code, err := c.do(ctx, http.MethodPost, resourcePath(name, owner), nil, &res)
	if code == http.StatusConflict {
		return ErrExists{Owner: res.Owner}
	}
	return err
}

// Delete removes the resource; a missing one is not an error.
func (c *Client) Delete(ctx context.Context, name, owner string) error {
	code, err := c.do(ctx, http.MethodDelete, resourcePath(name, owner), nil, nil)
	if code == http.StatusNotFound {
		return nil
	}
	return err
}

// Configure sets the latency and failure switch.
func (c *Client) Configure(ctx context.Context, cfg Config) error {
	_, err := c.do(ctx, http.MethodPut, "/config", cfg, nil)
	return err
}

// Log returns the operation log.
func (c *Client) Log(ctx context.Context) ([]Op, error) {
	var ops []Op
	_, err := c.do(ctx, http.MethodGet, "/log", nil, &ops)
	return ops, err
}
