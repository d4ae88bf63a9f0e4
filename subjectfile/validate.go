package subjectfile

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/cluster/local"
)

var (
	namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	pathPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	// conditionPathPattern is an ignore path naming a condition by its
	// type: status.conditions[Active], and fields below it. A type may
	// be qualified as metav1.Condition's are (a DNS prefix and a slash,
	// dots in its name): status.conditions[example.com/Synced].
	conditionPathPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\[([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\](\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	// resourcePattern is resource[.group][/subresource], as
	// leaderElected.leaderOnly names them.
	resourcePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(/[a-z]+)?$`)
)

// DefaultStartTimeout bounds a replica's start when run.startTimeout is
// not set.
const DefaultStartTimeout = 30 * time.Second

// Validate checks the bindings and fills in defaults. Parse calls it.
func (f *File) Validate() error {
	var errs []error
	bad := func(field, problem, expected string) {
		errs = append(errs, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: problem, Expected: expected})
	}
	if f.APIVersion != APIVersion && f.APIVersion != APIVersionV2 && f.APIVersion != APIVersionV1 {
		bad("apiVersion", fmt.Sprintf("%q is not a version this harness reads", f.APIVersion), APIVersion+" (or "+APIVersionV2+", "+APIVersionV1+")")
	}
	if f.Kind != Kind {
		bad("kind", fmt.Sprintf("%q", f.Kind), Kind)
	}
	if !namePattern.MatchString(f.Name) {
		bad("name", fmt.Sprintf("%q is not a name", f.Name), "lower-case letters, digits and '-', such as my-controller")
	}
	if len(f.Run.Command) == 0 {
		bad("run.command", "missing", "the program and its arguments, such as [\"/usr/local/bin/manager\", \"--kubeconfig={{.Kubeconfig}}\"]")
	}
	for i, c := range f.Run.Command {
		if _, err := Expand(c, sampleVars); err != nil {
			bad(fmt.Sprintf("run.command[%d]", i), err.Error(), "a template using only "+varNames)
		}
	}
	for k, v := range f.Run.Env {
		if _, err := Expand(v, sampleVars); err != nil {
			bad("run.env."+k, err.Error(), "a template using only "+varNames)
		}
	}
	for i, m := range f.Run.Manifests {
		if _, err := f.manifest(m); err != nil {
			bad(fmt.Sprintf("run.manifests[%d]", i), err.Error(), "a YAML file (or a glob such as crds/*.yaml), relative to the subject file")
		}
	}
	if len(f.Run.Command) > 0 && !f.options.FromImage {
		if err := f.checkProgram(f.Run.Command[0]); err != nil {
			bad("run.command[0]", err.Error(), "an executable: a path, or a program on PATH")
		}
	}
	for i, c := range f.Run.DisableControllers {
		if !slices.Contains(local.DefaultControllers, c) {
			bad(fmt.Sprintf("run.disableControllers[%d]", i), fmt.Sprintf("%q is not a controller the local cluster runs", c), "one of "+strings.Join(local.DefaultControllers, ", "))
		}
	}
	f.validatePod(bad)
	if f.Run.StartTimeout.Duration == 0 {
		f.Run.StartTimeout.Duration = DefaultStartTimeout
	}
	c := f.Capabilities
	if len(c.Bound()) == 0 {
		bad("capabilities", "none bound", "at least one of scalableWorkload, leaderElected, foregroundComposite, movableResource, reconciledObjects")
	}
	if s := c.ReconciledObjects; s != nil {
		s.validate(f, bad)
	}
	if m := c.MovableResource; m != nil {
		if f.APIVersion == APIVersionV1 {
			bad("capabilities.movableResource", "not in "+APIVersionV1, "apiVersion "+APIVersionV2+" or later (nothing else changes)")
		}
		m.validate(bad)
		if len(m.Mover.Command) > 0 {
			if err := f.checkProgram(m.Mover.Command[0]); err != nil {
				bad("capabilities.movableResource.mover.command[0]", err.Error(), "an executable: a path, or a program on PATH")
			}
		}
	}
	if fc := c.ForegroundComposite; fc != nil {
		if f.APIVersion == APIVersionV1 {
			bad("capabilities.foregroundComposite", "not in "+APIVersionV1, "apiVersion "+APIVersionV2+" or later (nothing else changes)")
		}
		fc.validate(bad)
	}
	if s := c.ScalableWorkload; s != nil {
		s.validate(bad)
	}
	if l := c.LeaderElected; l != nil {
		l.validate(bad)
	}
	return errors.Join(errs...)
}

func (s *ScalableWorkload) validate(bad func(field, problem, expected string)) {
	const at = "capabilities.scalableWorkload."
	if s.Resource == "" {
		bad(at+"resource", "missing", "the plural resource name, such as replicasets")
	}
	checkTemplate(bad, at, s.Template, "workload")
	for field, p := range map[string]string{"replicasPath": s.ReplicasPath, "statusReplicasPath": s.StatusReplicasPath} {
		if p == "" {
			bad(at+field, "missing", "a dotted field path such as "+map[string]string{"replicasPath": "spec.replicas", "statusReplicasPath": "status.replicas"}[field])
		}
	}
	for field, p := range map[string]string{"replicasPath": s.ReplicasPath, "statusReplicasPath": s.StatusReplicasPath, "observedGenerationPath": s.ObservedGenerationPath} {
		if p != "" && !pathPattern.MatchString(p) {
			bad(at+field, fmt.Sprintf("%q is not a field path", p), "field names joined by dots, such as status.replicas")
		}
	}
	if s.ExpectationTimeout.Duration < 0 {
		bad(at+"expectationTimeout", s.ExpectationTimeout.String()+" is negative", "a duration of 0s or more, such as \"5m\"")
	}
	switch d := s.ReplaceWithin.Duration; {
	case d == 0:
		s.ReplaceWithin.Duration = DefaultReplaceWithin
	case d < 0 || d > MaxReplaceWithin:
		bad(at+"replaceWithin", d.String()+" is out of range", fmt.Sprintf("a duration above 0s and at most %s, such as \"3m\" (default %s)", MaxReplaceWithin, DefaultReplaceWithin))
	}
}

func (l *LeaderElected) validate(bad func(field, problem, expected string)) {
	const at = "capabilities.leaderElected."
	if l.Lease.Name == "" {
		bad(at+"lease.name", "missing", "the Lease's name")
	}
	if l.Lease.Namespace == "" {
		bad(at+"lease.namespace", "missing", "the Lease's namespace, such as {{.Namespace}} (the spec's own)")
	}
	for field, v := range map[string]string{"lease.name": l.Lease.Name, "lease.namespace": l.Lease.Namespace} {
		if _, err := Expand(v, sampleVars); err != nil {
			bad(at+field, err.Error(), "a template using only "+varNames)
		}
	}
	if l.Replicas == 0 {
		l.Replicas = 2
	}
	if l.Replicas < 2 {
		bad(at+"replicas", fmt.Sprintf("%d", l.Replicas), "at least 2: an election needs a follower")
	}
	if l.LeaseDuration.Duration <= 0 {
		bad(at+"leaseDuration", "missing", "the manager's lease duration, such as \"15s\"")
	}
	if l.RetryPeriod.Duration <= 0 {
		bad(at+"retryPeriod", "missing", "the manager's retry period, such as \"2s\"")
	} else if l.RetryPeriod.Duration >= l.LeaseDuration.Duration {
		bad(at+"retryPeriod", l.RetryPeriod.String()+" is not shorter than leaseDuration", "a retry period shorter than the lease duration")
	}
	for i, r := range l.LeaderOnly {
		field := fmt.Sprintf("%sleaderOnly[%d]", at, i)
		res, _, _ := strings.Cut(r, "/")
		switch {
		case !resourcePattern.MatchString(r):
			bad(field, fmt.Sprintf("%q is not a resource", r), "a plural resource name, with its group but for the core group and optionally a subresource, such as configmaps, deployments.apps, widgets.example.com/status")
		case res == "leases" || res == "leases.coordination.k8s.io":
			bad(field, "the Lease is the election itself: every contender writes it", "the resources only the leader may write, not leases")
		}
	}
}

func (c *ForegroundComposite) validate(bad func(field, problem, expected string)) {
	const at = "capabilities.foregroundComposite."
	if c.Resource == "" {
		bad(at+"resource", "missing", "the claim's plural resource name, such as postgresinstances")
	}
	checkTemplate(bad, at, c.Template, "claim")
	b := &c.Block
	for field, v := range map[string]string{"apiVersion": b.APIVersion, "kind": b.Kind, "resource": b.Resource, "selector": b.Selector} {
		if v == "" {
			bad(at+"block."+field, "missing", "the "+field+" of what the claim owns (see docs/subject-files.md, foregroundComposite)")
		}
	}
	if _, err := Expand(c.BlockerMessage, sampleVars); err != nil {
		bad(at+"blockerMessage", err.Error(), "a template using {{.Namespace}} and {{.Name}}")
	}
	if _, err := Expand(b.Selector, sampleVars); err != nil {
		bad(at+"block.selector", err.Error(), "a label selector template using {{.Namespace}} and {{.Name}}")
	}
	if b.Finalizer == "" {
		b.Finalizer = "steadystate.dev/block"
	}
}

func (m *MovableResource) validate(bad func(field, problem, expected string)) {
	const at = "capabilities.movableResource."
	if m.Resource == "" {
		bad(at+"resource", "missing", "the plural resource name, such as clusters")
	}
	checkTemplate(bad, at, m.Template, "resource")
	if m.Finalizer == "" {
		bad(at+"finalizer", "missing", "the controller's finalizer, such as cluster.cluster.x-k8s.io")
	}
	if !pathPattern.MatchString(m.PausedPath) {
		bad(at+"pausedPath", fmt.Sprintf("%q is not a field path", m.PausedPath), "the dotted path of the pause flag, such as spec.paused")
	}
	if len(m.Mover.Command) == 0 {
		bad(at+"mover.command", "missing", "the mover and its arguments, with {{.SourceKubeconfig}}, {{.TargetKubeconfig}} and {{.Namespace}}")
	}
	for i, c := range m.Mover.Command {
		if _, err := Expand(c, sampleVars); err != nil {
			bad(fmt.Sprintf(at+"mover.command[%d]", i), err.Error(), "a template using only "+varNames)
		}
	}
}

// checkTemplate checks a binding's template: an object with apiVersion and
// kind (what names the object it stands for).
func checkTemplate(bad func(field, problem, expected string), at string, template map[string]any, what string) {
	if template == nil {
		bad(at+"template", "missing", "the "+what+" to create, with apiVersion, kind and spec")
		return
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if v, _ := template[k].(string); v == "" {
			bad(at+"template."+k, "missing", "the "+what+"'s "+k)
		}
	}
}
