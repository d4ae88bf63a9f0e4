// Package freeport picks the loopback TCP ports of the processes the harness
// starts: a cluster's etcd, API server, controller manager and scheduler,
// and a subject's own ports. Each keeps its port when it is restarted, so
// the port must stay free while the process is down. ListenedBy says
// whether the process started is the one that holds its port.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is the first port Pick picks from: above the ports servers
// commonly take (a kubelet's 10250, a controller manager's 10257).
const lowest = 20000

// rangeFile is where Linux says which ports it hands out as the source
// ports of connections (ip_local_port_range).
const rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// Pick returns n distinct TCP ports that were free on 127.0.0.1 a moment
// ago, below the kernel's ephemeral range when there is room. A
// port the kernel can hand out as a connection's source port can be taken
// in the moment a process restarts on it (a controller manager restarted
// while a dozen clusters ran found its port in use); one below that range
// is taken only by a process that binds it by number. Where the range is
// unknown, or leaves no room below it, the kernel picks (port 0). A port
// can still be taken before its process binds it: a cluster's start
// detects that and retries with new ports.
func Pick(n int) ([]int, error) {
	from, to, below := pickRange(readRange())
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	out := make([]int, 0, n)
	for tries := 0; len(out) < n; tries++ {
		addr := "127.0.0.1:0"
		if below && tries < 100*n {
			addr = fmt.Sprintf("127.0.0.1:%d", from+rand.IntN(to-from))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if addr != "127.0.0.1:0" {
				continue // taken: try another
			}
			return nil, fmt.Errorf("no free TCP port on 127.0.0.1 (%v): stop other clusters or processes holding local ports, then retry", err)
		}
		listeners = append(listeners, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// readRange is the ephemeral range's text, empty where it cannot be read.
func readRange() string {
	data, err := os.ReadFile(rangeFile)
	if err != nil {
		return ""
	}
	return string(data)
}

// pickRange is the ports [from, to) Pick picks from, given the ephemeral
// range's text ("32768\t60999"): from lowest up to the range's first port,
// when that leaves at least a thousand; below is false otherwise.
func pickRange(ephemeral string) (from, to int, below bool) {
	f := strings.Fields(ephemeral)
	if len(f) != 2 {
		return 0, 0, false
	}
	first, err := strconv.Atoi(f[0])
	if err != nil || first-lowest < 1000 {
		return 0, 0, false
	}
	return lowest, first, true
}
