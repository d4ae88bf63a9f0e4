package proc

import (
	"io"
	"sync"
)

// SyncWriter is W shared by writers on several goroutines (a child's
// stdout and stderr, runs side by side printing progress): each Write
// goes through whole, one at a time.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}
