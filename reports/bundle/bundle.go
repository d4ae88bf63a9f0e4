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
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// Format is the bundle format this steadystate writes and reads. Format
// 2 keeps every spec's evidence, passed or not, and the run's start; a
// format 1 bundle kept only failing specs' evidence, so its passing
// verdicts cannot be re-judged, and it is refused.
const Format = 2

// ManifestName is the manifest's path in a bundle.
const ManifestName = "manifest.json"

// Manifest describes a bundle: what ran, where, and every file's sum.
type Manifest struct {
	Format int `json:"format"`
	// Started is when the run began: every report and evidence file of
	// the bundle is from after it. Created is when the bundle was written.
	Started time.Time `json:"started"`
	Created time.Time `json:"created"`
	// Steadystate is the version (module version and commit) that ran.
	Steadystate string `json:"steadystate"`
	// Provider and Kubernetes say where it ran: the provider and the
	// Kubernetes version (local) or node image (kind).
	Provider   string `json:"provider"`
	Kubernetes string `json:"kubernetes,omitempty"`
	// Subject is the subject file's path in the bundle.
	Subject string `json:"subject"`
	// Versions are what the subject ran: each binary and image with its
	// sha256, or what identifies it.
	Versions map[string]string `json:"versions,omitempty"`
	// Capabilities, when set, are the only capabilities whose suites ran
	// (conform --capabilities); empty: every one the subject file binds.
	Capabilities []string `json:"capabilities,omitempty"`
	// Bound are the capabilities the subject file binds: those not run
	// are the run's gaps. Empty in a bundle written before it was kept.
	Bound []string `json:"bound,omitempty"`
	// Passed says whether every spec of every suite passed.
	Passed bool `json:"passed"`
	// Campaign, when set, says the bundle gathers the indices of a
	// campaign (steadystate campaign): each present index's results are
	// below index-<i>/, and a missing index makes the campaign
	// incomplete, whatever its present indices say.
	Campaign *Campaign `json:"campaign,omitempty"`
	Files    []File    `json:"files"`
	// Digest is the sha256 (hex) of manifest.json as the bundle holds
	// it, set by Write and Open, never stored: the manifest holds every
	// other file's sum, so this one figure, published apart from the
	// bundle, pins all of it (CheckDigest).
	Digest string `json:"-"`
}

// Campaign is what a campaign's bundle gathered: of the indices the Job
// had, those whose results it holds and those it has none of.
type Campaign struct {
	// Job is the Indexed Job's name and UID its uid, which every index's
	// results name; Indices how many indices it had.
	Job     string `json:"job"`
	UID     string `json:"uid,omitempty"`
	Indices int    `json:"indices"`
	// FirstSeed, SeedsPerIndex, Budget and Capability are how the indices
	// explored: index i ran the seeds FirstSeed+i*SeedsPerIndex onwards,
	// each for Budget.
	FirstSeed     uint64 `json:"firstSeed"`
	SeedsPerIndex int    `json:"seedsPerIndex"`
	Budget        string `json:"budget,omitempty"`
	Capability    string `json:"capability,omitempty"`
	// Present are the indices whose results the bundle holds; Missing
	// those that left none (their pod failed, or never ran).
	Present []int `json:"present"`
	Missing []int `json:"missing"`
}

// IndexFolder is index i's folder in a campaign's results and bundle.
func IndexFolder(i int) string { return fmt.Sprintf("index-%d", i) }

// IndexRecord is the record an index writes last in its folder, once
// its results are whole: an index whose folder has none left no results.
const IndexRecord = "index.json"

// Complete says every index of the campaign left its results.
func (c Campaign) Complete() bool { return len(c.Missing) == 0 && len(c.Present) == c.Indices }

// File is one file of a bundle and its sum.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Write packs every file below dir that skip does not leave out (paths
// relative to dir, with /), with m and their sums as the manifest, into
// out, replacing it whole.
func Write(out, dir string, m Manifest, skip func(rel string) bool) (Manifest, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	slices.Sort(rels)
	m.Format, m.Files = Format, nil
	for _, rel := range rels {
		f, err := sum(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return m, err
		}
		f.Path = rel
		m.Files = append(m.Files, f)
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	m.Digest = digest(manifest)
	return m, atomicfile.Write(out, func(w io.Writer) error { return pack(w, dir, manifest, m.Files, m.Created) })
}

func digest(manifest []byte) string {
	h := sha256.Sum256(manifest)
	return hex.EncodeToString(h[:])
}

func sum(p string) (File, error) {
	f, err := os.Open(p)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return File{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
}

func pack(w io.Writer, dir string, manifest []byte, files []File, at time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	add := func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, ModTime: at, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	}
	if err := add(ManifestName, int64(len(manifest)), strings.NewReader(string(manifest))); err != nil {
		return err
	}
	for _, f := range files {
		file, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return err
		}
		err = add(f.Path, f.Size, io.LimitReader(file, f.Size))
		file.Close()
		if err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// ErrInvalid marks a bundle that is truncated, changed or not a bundle.
var ErrInvalid = errors.New("invalid bundle")

// Open checks the bundle at p and extracts it into dst: it must be a
// complete .tar.gz with a manifest of a format this steadystate reads,
// and hold exactly the manifest's files, each with its sum. The error
// names the bundle and the file that is wrong.
func Open(p, dst string) (Manifest, error) {
	var m Manifest
	bad := func(format string, args ...any) (Manifest, error) {
		return m, fmt.Errorf("%w: %s: %s", ErrInvalid, p, fmt.Sprintf(format, args...))
	}
	f, err := os.Open(p)
	if err != nil {
		return m, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return bad("not a .tar.gz (%v)", err)
	}
	tr := tar.NewReader(gz)
	got := map[string]File{}
	var manifest []byte
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bad("truncated or corrupt (%v)", err)
		}
		name := h.Name
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(filepath.FromSlash(name)) {
			return bad("entry %q is not a plain file inside the bundle", name)
		}
		if name == ManifestName {
			if manifest, err = io.ReadAll(io.LimitReader(tr, 64<<20)); err != nil {
				return bad("truncated or corrupt (%v)", err)
			}
			continue
		}
		out := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return m, err
		}
		file, err := os.Create(out)
		if err != nil {
			return m, err
		}
		h256 := sha256.New()
		n, err := io.Copy(io.MultiWriter(file, h256), tr)
		file.Close()
		if err != nil {
			return bad("truncated or corrupt at %s (%v)", name, err)
		}
		got[name] = File{Path: name, Size: n, SHA256: hex.EncodeToString(h256.Sum(nil))}
	}
	if manifest == nil {
		return bad("no %s: not a steadystate results bundle", ManifestName)
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return bad("%s does not parse (%v)", ManifestName, err)
	}
	switch {
	case m.Format > Format:
		return bad("bundle format %d; this steadystate reads up to %d: use a newer steadystate", m.Format, Format)
	case m.Format < 1:
		return bad("%s has no format: not a steadystate results bundle", ManifestName)
	case m.Format < Format:
		return bad("bundle format %d, from an older steadystate that kept only failing specs' evidence: its passing verdicts cannot be re-judged; run steadystate conform again", m.Format)
	case m.Started.IsZero():
		return bad("%s has no run start (started): not a bundle steadystate conform wrote", ManifestName)
	}
	m.Digest = digest(manifest)
	// A bundle written before the reconcile suite's capability was
	// renamed names it steadyState.
	for i, c := range m.Capabilities {
		m.Capabilities[i] = renamed.CurrentCapability(c)
	}
	for i, c := range m.Bound {
		m.Bound[i] = renamed.CurrentCapability(c)
	}
	for _, want := range m.Files {
		have, ok := got[want.Path]
		switch {
		case !ok:
			return bad("%s is in the manifest but not in the bundle", want.Path)
		case have.SHA256 != want.SHA256 || have.Size != want.Size:
			return bad("%s has sha256 %s, the manifest says %s: it was changed after the bundle was written", want.Path, have.SHA256, want.SHA256)
		}
		delete(got, want.Path)
	}
	if extra := slices.Sorted(maps.Keys(got)); len(extra) > 0 {
		return bad("%s is in the bundle but not in the manifest", extra[0])
	}
	return m, nil
}

// CheckDigestSyntax says whether digest is a sha256, as conform prints it
// (64 hex digits, "sha256:" before them or not).
func CheckDigestSyntax(digest string) error {
	if b, err := hex.DecodeString(normalDigest(digest)); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("--digest %q is not a sha256 (64 hex digits): give the manifest digest steadystate conform printed for the bundle", digest)
	}
	return nil
}

func normalDigest(d string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "sha256:"))
}

// CheckDigest checks the bundle p, opened as m, against want, its
// manifest's sha256 as published apart from the bundle (conform prints
// it): a bundle whose files were edited together with their sums in the
// manifest passes Open, and fails here.
func CheckDigest(p string, m Manifest, want string) error {
	if err := CheckDigestSyntax(want); err != nil {
		return err
	}
	want = normalDigest(want)
	if m.Digest != want {
		return fmt.Errorf("%w: %s: its %s has sha256 %s, not the published %s: the bundle was changed after it was written, or the digest is another bundle's", ErrInvalid, p, ManifestName, m.Digest, want)
	}
	return nil
}
