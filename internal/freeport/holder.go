package freeport

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// tcpTables are Linux's tables of the machine's TCP sockets, IPv4 and IPv6
// (absent where IPv6 is turned off).
const tcp4Table, tcp6Table = "/proc/net/tcp", "/proc/net/tcp6"

var tcpTables = []string{tcp4Table, tcp6Table}

// listenState is a listening socket's state in those tables.
const listenState = "0A"

// ListenedBy reports whether process pid holds a socket listening on TCP
// port. A health check that passes says that something answers on the
// port, not that it is the process just started: when another process
// took the port between Pick and the start, the new process exits with
// "address already in use" while the other one answers its checks (an
// etcd answers any client). A process that has exited holds nothing. The
// error says that the tables could not be read (not Linux): the caller
// then knows nothing either way.
func ListenedBy(pid, port int) (bool, error) {
	inodes := map[string]bool{}
	for _, table := range tcpTables {
		if err := listeners(table, port, inodes); err != nil {
			return false, err
		}
	}
	if len(inodes) == 0 {
		return false, nil
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // exited: often why another process answers
	}
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		link, err := os.Readlink(fdDir + "/" + fd.Name())
		if err != nil {
			continue // closed meanwhile
		}
		if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// listeners adds to inodes the inode of each socket in table (the text of
// /proc/net/tcp or tcp6) listening on port.
func listeners(table string, port int, inodes map[string]bool) error {
	f, err := os.Open(table)
	if err != nil {
		if os.IsNotExist(err) && table == tcp6Table {
			return nil
		}
		return err
	}
	defer f.Close()
	return scanListeners(bufio.NewScanner(f), port, inodes)
}

// scanListeners reads a socket table: a heading line, then one socket a
// line, whose fields are "sl local_address rem_address st ... inode", the
// local address hex "0100007F:4E20" and the state hex.
func scanListeners(s *bufio.Scanner, port int, inodes map[string]bool) error {
	s.Scan() // the heading
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) < 10 || f[3] != listenState {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
			inodes[f[9]] = true
		}
	}
	return s.Err()
}
