// Command nsexec stands in for Chaos Mesh's nsexec in the chaos-daemon
// image that the Chaos Mesh kind test assembles. chaos-daemon runs what
// it applies inside a pod's namespaces as
//
//	/usr/local/bin/nsexec [-l] [-m PATH] [-i PATH] [-n PATH] [-p PATH] -- CMD ARGS...
//
// Chaos Mesh's own nsexec is a Rust program released only as a download,
// which no registry here serves; this one turns the call into util-linux
// nsenter's (--mount=PATH, --ipc=PATH, --net=PATH, --pid=PATH) and
// executes it. -l (find CMD in chaos-daemon's own mount namespace while
// entering the target's) has no nsenter equivalent and is refused: only
// HTTP, IO, JVM and block chaos ask for it, never NetworkChaos.
package main
