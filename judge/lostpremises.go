package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// ruleMatched is the premise that a proxy fault acted on the subject: the
// evidence's timeline has the fault, none of its injections failed, and
// its rule matched at least once: a replica's proxy log has an event it
// delivered as the rule's (held or delayed by it). Judged on the whole
// log, once the fault has ended: a delayed event is logged when the delay
// lets it go, a held one when the stall does.
func ruleMatched(fault, what string) Judge {
	return func(e *evidence.Evidence) error {
		injs, err := Injected(e.Faults, fault)
		if err != nil {
			return err
		}
		var named []string
		for _, inj := range injs {
			rules := chaos.Rules(inj)
			if len(rules) == 0 {
				return fmt.Errorf("%w: the %s at %s names no proxy rule (the evidence of an older steadystate?)", oracle.ErrNotEvaluated, fault, inj.Start.Format("15:04:05.000"))
			}
			for _, replica := range slices.Sorted(maps.Keys(rules)) {
				p, ok := e.Proxies[replica]
				if !ok {
					return fmt.Errorf("%w: proxy log of %q: %w", oracle.ErrNotEvaluated, replica, evidence.ErrMissing)
				}
				id := rules[replica]
				if slices.ContainsFunc(p.Events, func(ev proxy.Event) bool { return ev.Fault == id && ev.Delivered }) {
					return nil
				}
				named = append(named, replica+"'s "+id)
			}
		}
		return fmt.Errorf("the %s matched no event (%s): %s", fault, strings.Join(named, ", "), what)
	}
}

var (
	eventsDelayed = ruleMatched(chaos.DelayEvents("", proxy.EventMatch{}, 0, 0).Name(), "no pod event reached the subject late")
	watchStalled  = ruleMatched(chaos.Stall("", 0).Name(), "the stall held no pod event, so the watch it was to stall carried nothing while it lasted")
)
