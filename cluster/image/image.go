package image

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Static returns nil when path is a statically linked Linux executable,
// one that runs alone in an image FROM scratch, and else says why not.
func Static(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not a Linux executable: %v", path, err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("%s is not an executable (ELF type %s)", path, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			interp, _ := io.ReadAll(p.Open())
			return fmt.Errorf("%s is dynamically linked (interpreter %s): an image FROM scratch needs a static binary, such as one built with CGO_ENABLED=0", path, trimNUL(interp))
		}
	}
	return nil
}

func trimNUL(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Entrypoint is where FromBinary puts binary in the image, and runs it.
func Entrypoint(binary string) string { return "/" + filepath.Base(binary) }

// FromBinary writes to archive an image named ref that holds binary alone
// (see Entrypoint), with /tmp empty and writable by anyone. The binary
// must be static (see Static).
func FromBinary(binary, ref, archive string) error {
	if err := Static(binary); err != nil {
		return err
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("%q is not an image name: %v", ref, err)
	}
	info, err := os.Stat(binary)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return layerOf(binary, info) }, tarball.WithCompressionLevel(gzip.BestSpeed))
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config = v1.Config{Entrypoint: []string{Entrypoint(binary)}, WorkingDir: "/tmp"}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	if err := tarball.WriteToFile(archive, tag, img); err != nil {
		return fmt.Errorf("write image %s to %s: %w", ref, archive, err)
	}
	return nil
}

// layerOf streams an uncompressed layer: /tmp, and the binary at its
// entrypoint.
func layerOf(binary string, info os.FileInfo) (io.ReadCloser, error) {
	f, err := os.Open(binary)
	if err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	go func() {
		defer f.Close()
		t := tar.NewWriter(w)
		err := t.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: info.ModTime()})
		if err == nil {
			err = t.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: Entrypoint(binary)[1:], Mode: 0o755, Size: info.Size(), ModTime: info.ModTime()})
		}
		if err == nil {
			var n int64
			n, err = io.Copy(t, f)
			if err == nil && n != info.Size() {
				err = errors.New(binary + " changed while it was read")
			}
		}
		if err == nil {
			err = t.Close()
		}
		w.CloseWithError(err)
	}()
	return r, nil
}

// InEngine returns nil when the Docker engine the run uses (DOCKER_HOST)
// has image ref, and else says why not.
func InEngine(ctx context.Context, ref string) error {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", ref).CombinedOutput()
	if err != nil {
		return fmt.Errorf("image %s is not in the Docker engine the run uses: docker image inspect: %v: %s", ref, err, strings.TrimSpace(string(out)))
	}
	return nil
}
