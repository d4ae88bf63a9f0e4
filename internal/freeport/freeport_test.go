package freeport

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestPickRange(t *testing.T) {
	for _, c := range []struct {
		text     string
		from, to int
		below    bool
	}{
		{"32768\t60999\n", lowest, 32768, true},
		{"1024 65535", 0, 0, false},  // no room below
		{"20500 60999", 0, 0, false}, // under a thousand
		{"", 0, 0, false},            // not Linux, or not readable
		{"x 60999", 0, 0, false},
	} {
		from, to, below := pickRange(c.text)
		if from != c.from || to != c.to || below != c.below {
			t.Errorf("pickRange(%q) = %d, %d, %v, want %d, %d, %v", c.text, from, to, below, c.from, c.to, c.below)
		}
	}
}

// TestPickIsBelowTheEphemeralRange checks that the ports are distinct,
// bindable, and on this machine below the range the kernel hands out as
// connections' source ports.
func TestPickIsBelowTheEphemeralRange(t *testing.T) {
	got, err := Pick(20)
	if err != nil {
		t.Fatal(err)
	}
	_, to, below := pickRange(readRange())
	seen := map[int]bool{}
	for _, p := range got {
		if seen[p] {
			t.Errorf("port %d given twice in %v", p, got)
		}
		seen[p] = true
		if below && (p < lowest || p >= to) {
			t.Errorf("port %d is not in [%d, %d), below the ephemeral range %q", p, lowest, to, readRange())
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Errorf("port %d: %v", p, err)
			continue
		}
		l.Close()
	}
}

func TestScanListeners(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:4E20 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:4E20 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0000000000000000 20 4 30 10 -1
   2: 00000000:4E21 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3333 1 0000000000000000 100 0 0 10 0
`
	inodes := map[string]bool{}
	if err := scanListeners(bufio.NewScanner(strings.NewReader(table)), 0x4E20, inodes); err != nil {
		t.Fatal(err)
	}
	if len(inodes) != 1 || !inodes["1111"] {
		t.Errorf("listeners on port 0x4E20 = %v, want only 1111 (2222 is a connection, 3333 another port)", inodes)
	}
}

// TestListenedBy checks, on Linux, that this process is found holding its
// own listener and that a port held by another process is not its.
func TestListenedBy(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skipf("no /proc/net/tcp (%v): ListenedBy answers only on Linux", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if held, err := ListenedBy(os.Getpid(), port); err != nil || !held {
		t.Errorf("ListenedBy(self, %d) = %v, %v; want true", port, held, err)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if held, err := ListenedBy(cmd.Process.Pid, port); err != nil || held {
		t.Errorf("ListenedBy(another process, %d) = %v, %v; want false", port, held, err)
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	if held, err := ListenedBy(exited.Process.Pid, port); err != nil || held {
		t.Errorf("ListenedBy(an exited process, %d) = %v, %v; want false, nil", port, held, err)
	}
	l.Close()
	if held, err := ListenedBy(os.Getpid(), port); err != nil || held {
		t.Errorf("ListenedBy(self, %d) after close = %v, %v; want false", port, held, err)
	}
}
