package heartbeat

import "time"

// Every calls beat every interval, from its own goroutine, until the
// returned stop is called; stop returns once no beat runs or will.
func Every(interval time.Duration, beat func()) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}
