// Package refproc runs a reference controller as local replicas, each a
// refctl process talking to the API server through its own fault proxy, so
// every replica's requests are recorded and can be faulted.
package refproc
