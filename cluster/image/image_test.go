package image

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// staticProgram builds a small static Go program and returns its path.
func staticProgram(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// TestFromBinaryMakesAnImageThatRunsTheBinary reads the archive back: one
// image of the given name whose entrypoint is the binary, byte for byte.
func TestFromBinaryMakesAnImageThatRunsTheBinary(t *testing.T) {
	bin := staticProgram(t)
	archive := filepath.Join(t.TempDir(), "image.tar")
	if err := FromBinary(bin, "steadystate.dev/test/hello:v1", archive); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag("steadystate.dev/test/hello:v1")
	img, err := tarball.ImageFromPath(archive, &tag)
	if err != nil {
		t.Fatalf("the archive holds no image of that name: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/hello" || cfg.OS != "linux" {
		t.Errorf("entrypoint %q on %s, want /hello on linux", got, cfg.OS)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	want, _ := os.ReadFile(bin)
	files := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], _ = io.ReadAll(tr)
	}
	if string(files["hello"]) != string(want) {
		t.Errorf("the image's /hello is %d bytes, the binary %d", len(files["hello"]), len(want))
	}
	if _, ok := files["tmp/"]; !ok {
		t.Error("the image has no /tmp")
	}
}

// TestStaticRefusesWhatCannotRunAlone: a dynamically linked program and
// a script are refused, each with the reason.
func TestStaticRefusesWhatCannotRunAlone(t *testing.T) {
	if err := Static(staticProgram(t)); err != nil {
		t.Errorf("a static program is refused: %v", err)
	}
	cases := map[string]string{"/bin/ls": "dynamically linked (interpreter /lib", "": "not a Linux executable"}
	script := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases[script] = cases[""]
	delete(cases, "")
	for path, want := range cases {
		err := Static(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Static(%s) = %v, want an error saying %q", path, err, want)
		}
	}
	if err := FromBinary("/bin/ls", "x:y", filepath.Join(t.TempDir(), "a.tar")); err == nil {
		t.Error("FromBinary packed a dynamic binary")
	}
}

// TestInEngineSaysWhyNot: with no engine answering, the image is reported
// missing with docker's own reason.
func TestInEngineSaysWhyNot(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
	err := InEngine(t.Context(), "example.com/mgr:v1")
	if err == nil || !strings.Contains(err.Error(), "image example.com/mgr:v1 is not in the Docker engine the run uses") {
		t.Fatalf("err = %v", err)
	}
}
