package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/upstream"
)

// upstreamDir is UPSTREAM_DIR, else <cache>/upstream: the folder the
// upstream releases are built into and subject files read from.
func upstreamDir() (string, error) {
	if dir := os.Getenv("UPSTREAM_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	root, err := local.CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "upstream"), nil
}

// upstreamBinsCommand builds the upstream releases (all, or those named)
// from the Go module proxy into the upstream folder.
func upstreamBinsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	releases := upstream.Releases
	if len(args) > 0 {
		releases = nil
		for _, name := range args {
			r, ok := upstream.Lookup(name)
			if !ok {
				var names []string
				for _, r := range upstream.Releases {
					names = append(names, r.Name)
				}
				return fmt.Errorf("%w: %q is not an upstream release; known: %s", errUsage, name, strings.Join(names, ", "))
			}
			releases = append(releases, r)
		}
	}
	dir, err := upstreamDir()
	if err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "upstream-bins: %d release(s) into %s\n", len(releases), dir)
	if err := (upstream.Builder{Dir: dir, RepoRoot: root, Progress: stderr}).Build(ctx, releases); err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}

// moduleRoot is the steadystate module's folder: the wrappers of the
// upstream builds live in it.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && slices.Contains(strings.Fields(string(data)), "github.com/steadystate-dev/steadystate") {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("run this in the steadystate repository (%s is not in it): the upstream builds use its fixtures/upstream folder", wd)
		}
	}
}
