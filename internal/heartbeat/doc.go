// Package heartbeat calls a function at a fixed interval while something
// long runs, for the lines that say it still runs.
package heartbeat
