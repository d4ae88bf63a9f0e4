// Package stack is the reference controller of an operator's application
// stack, made to prove the reconcile suite's judges: its correct mode
// must pass the suite, and each of its many seeded bugs must break
// exactly the properties the catalog declares for it. It is a mutant
// controller for mutation testing of the suite's oracle: each bug is aimed
// at one hole a judge could have.
//
// A namespaced Stack (spec.tier, spec.secretName) gets, in this order:
//
//   - its finalizer, stack.reference.steadystate.dev/cleanup, first (an
//     Update of the Stack);
//   - the configuration: ConfigMap <name>-config, owned (controller,
//     blockOwnerDeletion), created with its tier and a token of 8 random
//     hex digits chosen at its creation (it differs between runs, like a
//     generated nonce), updated when the tier differs;
//   - the mirror: ConfigMap <name>-mirror with its tier, no
//     ownerReference, applied server-side (field owner "stack"), so its
//     first apply is a PATCH answered 201, never a create;
//   - the ledger: ConfigMap <name>-<the first 5 hex digits of the sha256
//     of the Stack's uid>, owned: its name differs in every run;
//   - the credentials: Secret <name>-creds, owned, holding a copy of the
//     data of the Secret spec.secretName names (a rotation of it is
//     copied);
//   - the Slot: cluster-scoped Slot <namespace>-<name> (spec tier and
//     stack), no ownerReference (a namespaced object cannot own it),
//     named in the Stack's spec.slotName (a merge patch of the Stack once
//     the Slot is made: a field of the user's object the controller owns);
//   - the audit record: ConfigMap stack-<namespace>-<name> in the
//     namespace default, whatever the controller watches, no
//     ownerReference;
//
// then its status, with a merge patch (no resourceVersion: a stale cache
// never meets a conflict there): observedGeneration, tier, configUID (the
// configuration's uid) and Ready, Available and Synced True (reasons
// Available and ReconcileSuccess), each condition with the generation it
// observed. The ConfigMaps of the namespace carry the label
// stack.reference.steadystate.dev/name. A Stack being deleted has the
// mirror, the Slot and the audit record deleted, waits until they are
// gone, takes a hold finalizer (see below) off the configuration, and
// releases its finalizer; the garbage collector takes the owned children.
// At start the process checks once, with a SelfSubjectAccessReview (a
// create that makes no object), that it may update Stacks.
//
// The controller watches Stacks, the ConfigMaps and Secrets they own,
// their ConfigMaps by label (the mirror), the Secrets they copy (by name)
// and their Slots (by spec.stack).
//
// The bugs. "Restarted" is a process that found, at its first pass over a
// Stack, the Stack already carrying its finalizer: another process of the
// controller ran before it. "Refused" is a write of its own answered 429
// or 500 (a 409 a correct controller meets by chance is not one). Each
// must break exactly the properties listed:
//
//   - unowned-child-stale-after-refusal (same-end-state): the mirror
//     follows a new tier only in the pass whose Stack update event (a
//     changed generation) set an in-memory mark; the mark is consumed at
//     the start of the pass, so a pass that fails on a refused write loses
//     it, and the mirror keeps the old tier for good.
//   - cluster-child-recreated-on-start (no-churn): restarted, it deletes
//     the Slot it finds and creates it again.
//   - leak-in-other-namespace (leaves-nothing-behind): the cleanup never
//     deletes the audit record in default.
//   - leak-by-apply (leaves-nothing-behind): the cleanup forgets the
//     mirror, which only a server-side apply ever made.
//   - churn-by-deletecollection (no-churn): restarted, it deletes the
//     Stack's labelled ConfigMaps (configuration, mirror, ledger) with one
//     deletecollection and applies them again (three PATCHes answered
//     201).
//   - resurrect-on-delete (leaves-nothing-behind): 50 ms after it released
//     the finalizer, a goroutine applies the mirror again from the
//     snapshot it had: it comes back once the Stack is gone.
//   - never-available (settles, recovers): Available=False
//     (MinimumReplicasUnavailable) for good, Ready=True.
//   - synced-false (settles, recovers): Synced=False (ReconcileError) for
//     good.
//   - degraded-always (settles, recovers): a Degraded=True condition for
//     good. These three are seen only by a judge that reads conditions
//     beside Ready: kstatus reads none of them.
//   - degraded-after-restart (recovers): restarted, it adds Degraded=True
//     and never clears it. No recovery after a restart settles, so the
//     changes after it are not made and the end state is not compared:
//     recovers is all it breaks.
//   - drop-field-after-refusal (same-end-state): after a refused write,
//     the next update of the configuration leaves its token out.
//   - status-rewrite-every-30s (quiescent): Synced's lastTransitionTime is
//     rewritten every 30 s (a requeue, and a write only once 30 s have
//     passed since the last, so its own event brings no other).
//   - hot-loop-after-restart (quiescent): restarted, it stamps Synced's
//     lastTransitionTime on every pass and requeues every second.
//   - hang-after-settling (quiescent, settles, leaves-nothing-behind): once
//     the process has had nothing to write for 25 s, every pass blocks for
//     good (the process and its watches stay up): it neither acts on the
//     next change nor releases its finalizer.
//   - dangling-uid-after-restart (no-churn, same-end-state):
//     status.configUID is written only while empty; restarted, it deletes
//     the configuration and creates it again, so the status names a uid no
//     object holds.
//   - stray-finalizer-after-restart (same-end-state): restarted, it puts
//     the finalizer stack.reference.steadystate.dev/hold on the
//     configuration (the cleanup takes it off, so nothing is left behind).
//   - owner-not-controller-after-restart (same-end-state): restarted, it
//     rewrites the credentials' ownerReference with controller=false.
//   - secret-not-resynced-after-restart (same-end-state): restarted, it
//     still makes the credentials when they are missing but never copies
//     the source Secret into them again: a rotation after the restart is
//     lost.
//   - recreate-children-on-start (no-churn): restarted, it deletes each
//     owned child it finds (configuration, ledger, credentials) and
//     creates it again.
//   - panic-every-reconcile (acts, no-panic): every pass dereferences a nil
//     pointer before anything else; controller-runtime recovers it and
//     logs "Observed a panic". It writes nothing (its access review aside,
//     which makes no object).
//   - second-finalizer-while-deleting (no-finalizer-on-deleting): a Stack
//     being deleted gets a second finalizer,
//     stack.reference.steadystate.dev/audit, before the cleanup: the API
//     server refuses it (422) and the cleanup goes on.
//   - slow-after-refusal (recovers): after a refused write it leaves the
//     Stack's status alone for 60 s (its children it still syncs, and
//     retries as usual, so the refused writes go on drawing 429, 500 and
//     409): the status stays behind the Stack's generation for longer than
//     any bound of recovery. The changes after an unsettled recovery are
//     not made, so the end state is not compared. (A first version left
//     the whole Stack alone for 60 s: it then made no write under 500 or
//     409, and the refused-writes premise, not the property, broke.)
//   - watch-never-back (recovers): Stacks come from a watch loop of its own
//     (watch.go), read fresh, with no informer of Stacks; the loop ends
//     for good on an error event, the 410 Expired of a forced relist: no
//     later change of a Stack is acted on.
//   - leak-cluster-child (leaves-nothing-behind): the cleanup forgets the
//     Slot.
//   - finalizer-never-released (leaves-nothing-behind): the cleanup runs
//     but the finalizer is never removed.
//   - extra-child-after-refusal (same-end-state, no-churn): after a refused
//     write it creates one more owned ConfigMap, generateName
//     <name>-retry-.
//   - status-flaps (settles, recovers): once everything is in place, Ready
//     is True for the first quarter second of every 3 s and False for the
//     rest, forever. The settle window (2 s) is never met, so no quiet
//     window is watched (quiescence is owed by a settled state) and the
//     fault-free references did not settle (nothing is compared with
//     them): settles and recovers are all it breaks, every time. A True
//     period is ended by the controller's next write, which a loaded
//     machine delays: at 1 s, a delay of 1 s made one last the window and
//     broke quiescent besides (CI's self-test, 12 cells at a time); at a
//     quarter second the write can be 1.75 s late. With True periods
//     longer than the window it would break quiescent instead, and the end
//     state would be taken at a random point of the cycle.
//   - stale-tier-status-after-restart (same-end-state): restarted, it no
//     longer updates status.tier; observedGeneration it still does.
//   - ledger-recreated-on-start (no-churn, same-end-state): restarted, it
//     deletes the uid-named ledger and creates one under a random suffix;
//     its steady path, which looks for the uid's name, makes the uid-named
//     one again: two ledgers are left.
//   - orphan-mirror-on-relist (no-churn): a stale cache's orphan check
//     (orphan.go). Stacks are read fresh and polled every 250 ms; the
//     mirror records the generation it was applied from, and the first
//     step of every pass deletes a mirror that records a generation
//     higher than the Stack's in the informer cache (taken for an earlier
//     Stack's), once that has looked so for 500 ms (the pass waits for
//     it, doing nothing else). While the cache is
//     behind, the Stack's own mirror is deleted and applied again, over
//     and over, until the cache catches up. A stale view (the watches
//     stalled at least W=2 s past another party's change) catches it
//     every time; missed events sometimes too, when the relist of Stacks
//     comes late enough, which breaks nothing else (the mirror is back
//     by the end).
//   - churn-in-other-namespace (no-churn): restarted, it deletes the audit
//     record in default and creates it again.
//   - cluster-child-stale-after-restart (same-end-state): restarted, it no
//     longer updates the Slot's tier.
//   - slot-name-rewritten-after-restart (same-end-state): restarted, it
//     writes spec.slotName as the Stack's name alone (an older version's
//     format, which names no Slot) and takes it for right from then on.
//     The Slot, the status and the metadata stay right: only a comparison
//     of the fields of the applied Stack beside its status sees it.
//
// The restart bugs act only where a restart finds the Stack finalized:
// in a restart of the settled controller, and after its first create of
// each resource; a restart before its first write of the Stack (after its
// access review only) leaves them correct.
package stack
