// Package judge holds the judgements of the properties that are pure
// functions of recorded evidence: the scaling invariant, the one-writer
// invariant, the claim's truthful status, the finalizer properties P2 to
// P4, the scenario premises that proxy logs prove, and the convergences
// whose bound the spec recorded as a fact (FactConvergence), replayed as
// they were judged live once T and W had passed. The suites call
// them through Offline on their live evidence, and `steadystate validate`
// calls the same functions on a failure's evidence.json with no cluster,
// so a verdict can be checked by anyone who has the artifacts.
package judge
