package progress

// Event is one line of a suite's progress.
type Event struct {
	// Spec of Specs is running, named Text (set on a spec's start).
	Spec  int    `json:"spec,omitempty"`
	Specs int    `json:"specs,omitempty"`
	Text  string `json:"text,omitempty"`
	// Fault started (Active) or ended, on Target.
	Fault  string `json:"fault,omitempty"`
	Target string `json:"target,omitempty"`
	Active bool   `json:"active,omitempty"`
	// Status is a line a suite composes itself (exploration's schedules
	// and findings so far), printed as it is.
	Status string `json:"status,omitempty"`
	// PeakMemory is the suite process's peak resident memory in bytes,
	// sent once its specs are done: its fault proxies and recorders run
	// in it (the cluster's and the subject's processes are its children
	// and not counted).
	PeakMemory int64 `json:"peakMemory,omitempty"`
}
