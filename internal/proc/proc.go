package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec says how to run a process.
type Spec struct {
	// Name labels the process in errors.
	Name string
	Path string
	Args []string
	// Env is added to the harness's environment.
	Env []string
	// LogPath receives stdout and stderr, appended across restarts.
	LogPath string
}

// Proc is a running (or exited) child process.
type Proc struct {
	spec Spec

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current run has exited
	waitErr error         // valid after done is closed
}

// Start runs spec.
func Start(spec Spec) (*Proc, error) {
	p := &Proc{spec: spec}
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Proc) start() error {
	log, err := os.OpenFile(p.spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log for %s: %w", p.spec.Name, err)
	}
	cmd := exec.Command(p.spec.Path, p.spec.Args...)
	cmd.Env = append(os.Environ(), p.spec.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	// Own process group: signals reach any children too. Parent-death
	// signal: a harness killed with SIGKILL takes its processes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s (%s): %w", p.spec.Name, p.spec.Path, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done, p.waitErr = cmd, done, nil
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		log.Close()
		p.mu.Lock()
		if p.cmd == cmd {
			p.waitErr = err
		}
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// Name is the spec's name.
func (p *Proc) Name() string { return p.spec.Name }

// LogPath is where the output goes.
func (p *Proc) LogPath() string { return p.spec.LogPath }

// PID is the process ID of the current run.
func (p *Proc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// Done is closed when the current run exits.
func (p *Proc) Done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Exited reports whether the current run has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group, waits up to grace, then sends
// SIGKILL and waits for the exit. Safe on an exited process.
func (p *Proc) Stop(grace time.Duration) {
	done, pid := p.Done(), p.PID()
	select {
	case <-done:
		return
	default:
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-done
}

// Kill sends SIGKILL to the process group and waits for the exit.
func (p *Proc) Kill() {
	done, pid := p.Done(), p.PID()
	select {
	case <-done:
		return
	default:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-done
}

// Restart stops the current run (SIGTERM, SIGKILL after grace) and starts
// the spec again, with a new PID.
func (p *Proc) Restart(grace time.Duration) error {
	p.Stop(grace)
	return p.start()
}

// ExitError describes an exit during start-up with the tail of the log.
func (p *Proc) ExitError() error {
	p.mu.Lock()
	status := "exited"
	if p.waitErr != nil {
		status = p.waitErr.Error()
	}
	p.mu.Unlock()
	return fmt.Errorf("%s exited during start-up (%s); its log:\n%s\nfull log: %s",
		p.spec.Name, status, indent(ExcerptFile(p.spec.LogPath)), p.spec.LogPath)
}

// LogContains reports whether the log holds s.
func (p *Proc) LogContains(s string) bool {
	data, err := os.ReadFile(p.spec.LogPath)
	return err == nil && bytes.Contains(data, []byte(s))
}

// Tail returns the last n lines of a file.
func Tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// The lines of a log an excerpt keeps: a process that exits says why in
// its first lines (a flag it does not know, a missing file) as often as
// in its last (a panic, a fatal error after start-up).
const (
	ExcerptHead = 5
	ExcerptTail = 20
)

// ExcerptFile is Excerpt of a file's text.
func ExcerptFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return Excerpt(string(data))
}

// Excerpt is a log's first ExcerptHead and last ExcerptTail lines, with
// a line saying how many were left out between them; a log that short
// whole. An empty log says so.
func Excerpt(log string) string {
	log = strings.TrimRight(log, "\n")
	if strings.TrimSpace(log) == "" {
		return "(the log is empty)"
	}
	lines := strings.Split(log, "\n")
	if len(lines) <= ExcerptHead+ExcerptTail {
		return log
	}
	cut := len(lines) - ExcerptHead - ExcerptTail
	out := append(slices.Clip(lines[:ExcerptHead]), fmt.Sprintf("… %d lines …", cut))
	return strings.Join(append(out, lines[len(lines)-ExcerptTail:]...), "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
