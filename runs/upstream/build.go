package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Builder builds releases into Dir, one folder per release, and keeps
// them: a release already built at its version is not built again.
type Builder struct {
	// Dir is the upstream folder (make upstream-bins: UPSTREAM_DIR).
	Dir string
	// RepoRoot is this repository's folder, where wrappers live.
	RepoRoot string
	// Env is the environment of every go command (GOPROXY, GOMODCACHE...);
	// nil means this process's.
	Env []string
	// Progress receives numbered progress lines with elapsed times.
	Progress io.Writer
}

// Stamp is written as release.json next to a finished build: what was
// built, from what, and the binary's digest.
type Stamp struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Wrapper string `json:"wrapper,omitempty"`
	Binary  string `json:"binary"`
	SHA256  string `json:"sha256"`
	// Static says the binary was linked statically (CGO_ENABLED=0, or
	// cgo with -extldflags=-static): it runs on any Linux host and alone
	// in a FROM scratch image (a subject in pods).
	Static bool      `json:"static"`
	Built  time.Time `json:"built"`
}

const stampFile = "release.json"

// Path is the folder of a release's build.
func (b Builder) Path(r Release) string { return filepath.Join(b.Dir, r.Name) }

// Built reads the stamp of a finished build of r; false when there is
// none, it is of another module or version, or the binary is not static
// (an older build, made again). A prebuilt binary counts when its folder
// has a release.json naming the module and version, with static true.
func (b Builder) Built(r Release) (Stamp, bool) {
	var s Stamp
	data, err := os.ReadFile(filepath.Join(b.Path(r), stampFile))
	if err != nil || json.Unmarshal(data, &s) != nil {
		return Stamp{}, false
	}
	return s, s.Module == r.Module && s.Version == r.Version && s.Static
}

// Build builds every release not built yet, in order, printing
// "[i/n] name: ..." lines. The first failure stops it; a release's
// folder appears only once its build is complete.
func (b Builder) Build(ctx context.Context, releases []Release) error {
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return fmt.Errorf("upstream folder: %w", err)
	}
	for i, r := range releases {
		p := progress{w: b.Progress, prefix: fmt.Sprintf("[%d/%d] %s", i+1, len(releases), r.Name), start: time.Now()}
		if s, ok := b.Built(r); ok {
			p.say("built already (%s, sha256 %.12s)", b.Path(r), s.SHA256)
			continue
		}
		if err := b.build(ctx, r, &p); err != nil {
			return fmt.Errorf("upstream %s: %w", r.Name, err)
		}
		p.say("built %s", filepath.Join(b.Path(r), r.Binary))
	}
	return nil
}

func (b Builder) build(ctx context.Context, r Release, p *progress) error {
	work, err := os.MkdirTemp(b.Dir, ".build-"+r.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	p.say("downloading %s@%s", r.Module, r.Version)
	moduleDir, err := b.download(ctx, r)
	if err != nil {
		return err
	}
	if r.Wrapper != "" {
		p.say("copying the wrapper module %s, requiring %s@%s", r.Wrapper, r.Module, r.Version)
		if err := os.CopyFS(src, os.DirFS(filepath.Join(b.RepoRoot, r.Wrapper))); err != nil {
			return fmt.Errorf("copy wrapper %s: %w", r.Wrapper, err)
		}
		if err := b.goCmd(ctx, src, p, "mod", "edit", "-require="+r.Module+"@"+r.Version); err != nil {
			return err
		}
		if err := b.goCmd(ctx, src, p, "mod", "tidy"); err != nil {
			return err
		}
	} else {
		p.say("copying the module to a writable folder")
		if err := os.CopyFS(src, os.DirFS(moduleDir)); err != nil {
			return fmt.Errorf("copy module %s: %w", moduleDir, err)
		}
		for _, rep := range r.Replace {
			if err := b.goCmd(ctx, src, p, "mod", "edit", "-replace="+rep); err != nil {
				return err
			}
		}
	}
	p.say("go build %s (minutes when cold)", r.Package)
	env, args := buildArgs(r, filepath.Join(out, r.Binary))
	if err := b.goCmdEnv(ctx, src, p, env, args...); err != nil {
		return err
	}
	for _, c := range r.Copy {
		if err := os.CopyFS(filepath.Join(out, c.To), os.DirFS(filepath.Join(src, c.From))); err != nil {
			return fmt.Errorf("copy %s from the module: %w", c.From, err)
		}
		if err := labelYAML(filepath.Join(out, c.To), c.Labels); err != nil {
			return fmt.Errorf("label %s: %w", c.From, err)
		}
	}
	sum, err := fileSHA256(filepath.Join(out, r.Binary))
	if err != nil {
		return err
	}
	stamp, _ := json.MarshalIndent(Stamp{Module: r.Module, Version: r.Version, Wrapper: r.Wrapper, Binary: r.Binary, SHA256: sum, Static: true, Built: time.Now().UTC()}, "", "  ")
	if err := os.WriteFile(filepath.Join(out, stampFile), append(stamp, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(b.Path(r)); err != nil {
		return err
	}
	return os.Rename(out, b.Path(r))
}

// buildArgs are the go build command building r into out, and what it
// adds to the Builder's environment: a cgo release's CGO_ENABLED=1 (the
// later entry wins over env's CGO_ENABLED=0), linked statically. The
// binaries carry no symbol table and no DWARF: nothing here debugs them,
// the linker writes a large binary's DWARF in a good part of its time
// (-s -w), and a cold compile without it (-dwarf=false) took about 15%
// less time (docs/figures.md).
func buildArgs(r Release, out string) (env, args []string) {
	args = []string{"build", "-trimpath", "-gcflags=all=-dwarf=false"}
	ldflags := "-s -w"
	if r.Cgo {
		env = []string{"CGO_ENABLED=1"}
		args = append(args, "-tags", "netgo,osusergo")
		ldflags += " -extldflags=-static"
	}
	return env, append(args, "-ldflags", ldflags, "-o", out, r.Package)
}

// download fetches the module through the configured proxy and returns
// its folder; a refusal names the module, the version and what to do.
func (b Builder) download(ctx context.Context, r Release) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", r.Module+"@"+r.Version)
	cmd.Env = b.env()
	cmd.Dir = b.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(stdout.Bytes(), &info)
	if runErr == nil && info.Dir != "" {
		return info.Dir, nil
	}
	why := strings.TrimSpace(info.Error)
	if why == "" {
		why = strings.TrimSpace(stderr.String() + " " + fmt.Sprint(runErr))
	}
	return "", fmt.Errorf("the Go module proxy did not serve %s@%s: %s\n"+
		"  what to do: set GOPROXY to a proxy that serves this version (GOPROXY=%s now), "+
		"or put a prebuilt %s (with a %s) in %s",
		r.Module, r.Version, why, b.goEnv("GOPROXY"), r.Binary, stampFile, b.Path(r))
}

// goCmd runs go in dir, in its own process group so that a cancelled build
// stops the compilers too; a failure carries the command's output tail.
func (b Builder) goCmd(ctx context.Context, dir string, p *progress, args ...string) error {
	return b.goCmdEnv(ctx, dir, p, nil, args...)
}

// goCmdEnv is goCmd with extra entries after the Builder's environment.
func (b Builder) goCmdEnv(ctx context.Context, dir string, p *progress, extra []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, append(b.env(), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stop := p.heartbeat("go " + args[0])
	err := cmd.Run()
	stop()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 30))
	}
	return nil
}

// env pins what must not change under a build: no workspace, the local
// toolchain (no download of another one, which has no network here), and
// static binaries (CGO_ENABLED=0, as each project builds its own images).
func (b Builder) env() []string {
	env := b.Env
	if env == nil {
		env = os.Environ()
	}
	return append(env[:len(env):len(env)], "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0", "GOFLAGS=-mod=mod -buildvcs=false")
}

func (b Builder) goEnv(key string) string {
	cmd := exec.Command("go", "env", key)
	cmd.Env = b.env()
	out, err := cmd.Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// BuildInto builds releases into dir from the steadystate module in the
// working folder (ModuleRoot), with progress lines.
func BuildInto(ctx context.Context, dir string, releases []Release, progress io.Writer) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "upstream-bins: %d release(s) into %s\n", len(releases), dir)
	return Builder{Dir: dir, RepoRoot: root, Progress: progress}.Build(ctx, releases)
}
