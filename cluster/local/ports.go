package local

import "github.com/steadystate-dev/steadystate/internal/freeport"

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a
// moment ago, below the kernel's ephemeral range (freeport.Pick), so a
// component restarted on its port finds it free. A port can still be
// taken before the component binds it; Start detects that and retries
// with new ports.
func freePorts(n int) ([]int, error) {
	return freeport.Pick(n)
}
