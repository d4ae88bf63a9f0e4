package local

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/internal/proc"
)

// TestWaitHealthyRefusesAnAnswerFromAnotherProcess: a component whose port
// another process took between the pick and its start exits, while the
// other process answers its health check (an etcd answers any client). The
// start must see that and pick new ports, not run the cluster on the other
// process; a check of no port (0) is taken as it answers.
func TestWaitHealthyRefusesAnAnswerFromAnotherProcess(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0") // the other process: this test's
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	p, err := proc.Start(proc.Spec{Name: "etcd", Path: "sleep", Args: []string{"60"}, LogPath: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	answers := func(context.Context) error { return nil }
	if err := waitHealthy(t.Context(), p, port, time.Minute, answers); !errors.Is(err, errPortTaken) {
		t.Errorf("waitHealthy on port %d held by another process = %v, want errPortTaken", port, err)
	}
	if err := waitHealthy(t.Context(), p, 0, time.Minute, answers); err != nil {
		t.Errorf("waitHealthy with no port = %v, want nil", err)
	}
	// The usual case: the new process has already exited with "address
	// already in use" when the other one answers.
	gone, err := proc.Start(proc.Spec{Name: "etcd", Path: "true", LogPath: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	<-gone.Done()
	if err := waitHealthy(t.Context(), gone, port, time.Minute, answers); !errors.Is(err, errPortTaken) {
		t.Errorf("waitHealthy of an exited process on port %d held by another = %v, want errPortTaken", port, err)
	}
}
