package bundle

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run is a results folder as a run leaves it, with a folder to leave out.
func run(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"subject/subject.yaml":                     "apiVersion: steadystate.dev/v1alpha2\n",
		"runs/leader/x-correct/1/report.json":      "[]",
		"runs/leader/x-correct/1/spec/history.txt": "   +0.010s  lease  ADDED\n",
		"bin/leader.test":                          "a big binary",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func write(t *testing.T) (string, Manifest) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	m, err := Write(out, run(t), Manifest{Started: time.Unix(0, 0).UTC(), Created: time.Unix(60, 0).UTC(), Provider: "local", Subject: "subject/subject.yaml"},
		func(rel string) bool { return rel == "bin" })
	if err != nil {
		t.Fatal(err)
	}
	return out, m
}

func TestWriteThenOpen(t *testing.T) {
	out, written := write(t)
	if len(written.Files) != 3 {
		t.Fatalf("files %+v: want the three outside bin/", written.Files)
	}
	dst := t.TempDir()
	m, err := Open(out, dst)
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != Format || m.Subject != "subject/subject.yaml" || len(m.Files) != 3 {
		t.Errorf("manifest %+v", m)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "runs/leader/x-correct/1/spec/history.txt")); !strings.Contains(string(got), "lease") {
		t.Errorf("extracted history.txt: %q", got)
	}
}

// rewrite copies a bundle entry by entry, letting change edit each entry
// (nil drops it) and add more at the end.
func rewrite(t *testing.T, in string, change func(h *tar.Header, body []byte) []byte, add map[string]string) string {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := filepath.Join(t.TempDir(), "changed.tar.gz")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	gw := gzip.NewWriter(o)
	tw := tar.NewWriter(gw)
	put := func(name string, body []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if body = change(h, body); body != nil {
			put(h.Name, body)
		}
	}
	for name, body := range add {
		put(name, []byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func same(_ *tar.Header, body []byte) []byte { return body }

// Every kind of bad bundle is refused with the bundle's name and what is
// wrong in it.
func TestOpenRefusesBadBundles(t *testing.T) {
	good, _ := write(t)
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(t.TempDir(), "truncated.tar.gz")
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	notGz := filepath.Join(t.TempDir(), "plain.tar.gz")
	if err := os.WriteFile(notGz, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		path, want string
	}{
		"truncated": {truncated, "truncated or corrupt"},
		"not gzip":  {notGz, "not a .tar.gz"},
		"tampered": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if strings.HasSuffix(h.Name, "report.json") {
				return []byte(`[{"x":1}]`)
			}
			return b
		}, nil), "runs/leader/x-correct/1/report.json has sha256"},
		"a file dropped": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if strings.HasSuffix(h.Name, "history.txt") {
				return nil
			}
			return b
		}, nil), "history.txt is in the manifest but not in the bundle"},
		"a file added": {rewrite(t, good, same, map[string]string{"runs/extra.json": "{}"}), "runs/extra.json is in the bundle but not in the manifest"},
		"escaping":     {rewrite(t, good, same, map[string]string{"../evil": "x"}), `entry "../evil" is not a plain file inside the bundle`},
		"no manifest": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if h.Name == ManifestName {
				return nil
			}
			return b
		}, nil), "no manifest.json: not a steadystate results bundle"},
		"newer": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if h.Name == ManifestName {
				return []byte(strings.Replace(string(b), `"format": 2`, `"format": 7`, 1))
			}
			return b
		}, nil), "bundle format 7; this steadystate reads up to 2"},
		"older": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if h.Name == ManifestName {
				return []byte(strings.Replace(string(b), `"format": 2`, `"format": 1`, 1))
			}
			return b
		}, nil), "bundle format 1, from an older steadystate that kept only failing specs' evidence"},
		"no run start": {rewrite(t, good, func(h *tar.Header, b []byte) []byte {
			if h.Name == ManifestName {
				return []byte(strings.Replace(string(b), `"started": "1970-01-01T00:00:00Z"`, `"started": "0001-01-01T00:00:00Z"`, 1))
			}
			return b
		}, nil), "manifest.json has no run start"},
	} {
		_, err := Open(tc.path, t.TempDir())
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q naming the bundle", name, err, tc.want)
		}
	}
}

// A report edited together with its line in the manifest passes Open (the
// sums vouch for themselves) and fails the check against the digest
// published apart from the bundle.
func TestDigestCatchesAnArchiveEditedWhole(t *testing.T) {
	good, written := write(t)
	if len(written.Digest) != 64 {
		t.Fatalf("Write's digest %q: want a sha256", written.Digest)
	}
	forged := []byte(`[{"forged":true}]`)
	sum := sha256.Sum256(forged)
	edited := rewrite(t, good, func(h *tar.Header, b []byte) []byte {
		switch {
		case strings.HasSuffix(h.Name, "report.json"):
			return forged
		case h.Name == ManifestName:
			var m Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for i, f := range m.Files {
				if strings.HasSuffix(f.Path, "report.json") {
					m.Files[i].SHA256, m.Files[i].Size = hex.EncodeToString(sum[:]), int64(len(forged))
				}
			}
			b, _ = json.MarshalIndent(m, "", "  ")
		}
		return b
	}, nil)
	m, err := Open(edited, t.TempDir())
	if err != nil {
		t.Fatalf("the edited bundle is consistent with its own manifest, Open should pass: %v", err)
	}
	err = CheckDigest(edited, m, written.Digest)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), edited) || !strings.Contains(err.Error(), "not the published "+written.Digest) {
		t.Errorf("CheckDigest of the edited bundle: %v", err)
	}
	m, err = Open(good, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{written.Digest, "sha256:" + strings.ToUpper(written.Digest)} {
		if err := CheckDigest(good, m, d); err != nil {
			t.Errorf("CheckDigest(%s) of the bundle as written: %v", d, err)
		}
	}
}

func TestCheckDigestRefusesWhatIsNotADigest(t *testing.T) {
	good, _ := write(t)
	m, err := Open(good, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"", "abc", strings.Repeat("z", 64), fmt.Sprintf("%x", sha256.Sum224(nil))} {
		if err := CheckDigest(good, m, d); err == nil || !strings.Contains(err.Error(), "is not a sha256 (64 hex digits)") {
			t.Errorf("digest %q: %v", d, err)
		}
	}
}

// A bundle written before the reconcile suite's capability was renamed
// names it steadyState, bound and run: it opens under the current name.
func TestOpenReadsTheFormerCapabilityName(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	if _, err := Write(out, run(t), Manifest{Started: time.Unix(0, 0).UTC(), Created: time.Unix(60, 0).UTC(), Provider: "local", Subject: "subject/subject.yaml",
		Capabilities: []string{"steadyState"}, Bound: []string{"leaderElected", "steadyState"}}, func(rel string) bool { return rel == "bin" }); err != nil {
		t.Fatal(err)
	}
	m, err := Open(out, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Capabilities, ",") != "reconciledObjects" || strings.Join(m.Bound, ",") != "leaderElected,reconciledObjects" {
		t.Errorf("opened as capabilities %v, bound %v", m.Capabilities, m.Bound)
	}
}
