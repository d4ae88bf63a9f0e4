package subject

import (
	"fmt"
	"sync"
)

// unresolved holds, per capability binding (capabilities.scalableWorkload),
// why a field of it did not resolve on the subject's own objects in this
// run, once a spec proved it.
var unresolved struct {
	sync.Mutex
	why map[string]string
}

// Unresolved records that a field of binding did not resolve, as spec
// proved with err (which names the field). Every later spec of the
// capability in this run is then not run, saying so: the binding is what
// is wrong, and every spec would fail the same way.
func Unresolved(binding, spec string, err error) {
	unresolved.Lock()
	defer unresolved.Unlock()
	if unresolved.why == nil {
		unresolved.why = map[string]string{}
	}
	if _, ok := unresolved.why[binding]; !ok {
		unresolved.why[binding] = fmt.Sprintf("%v (proved by spec %q)", err, spec)
	}
}

// unresolvedWhy is why binding did not resolve, "" when nothing proved it.
func unresolvedWhy(binding string) string {
	unresolved.Lock()
	defer unresolved.Unlock()
	return unresolved.why[binding]
}

// NotRun begins the skip message of a spec not run because its
// capability's binding did not resolve in an earlier spec.
const NotRun = "not run, the binding does not resolve: "
