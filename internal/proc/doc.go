// Package proc runs child processes the harness owns: each in its own
// process group, output to a log file, killed by the kernel if the harness
// dies first, and stoppable, killable and restartable by PID.
package proc
