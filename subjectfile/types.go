package subjectfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// The version and kind a subject file declares. v1alpha2 adds the
// foregroundComposite capability, v1alpha3 the reconciledObjects capability; a
// v1alpha1 or v1alpha2 file reads as before, and moves by changing its
// apiVersion.
const (
	APIVersion   = "steadystate.dev/v1alpha3"
	APIVersionV2 = "steadystate.dev/v1alpha2"
	APIVersionV1 = "steadystate.dev/v1alpha1"
	Kind         = "Subject"
)

// File is a subject file.
type File struct {
	// APIVersion is steadystate.dev/v1alpha3 (v1alpha1 and v1alpha2
	// files still read).
	APIVersion string `json:"apiVersion"`
	// Kind is Subject.
	Kind string `json:"kind"`
	// Name names the subject in results, artifacts and replica names.
	Name         string       `json:"name"`
	Run          Run          `json:"run"`
	Capabilities Capabilities `json:"capabilities"`

	// Path is where the file was read from ("" when parsed from bytes);
	// Run.Manifests are relative to its folder.
	Path string `json:"-"`
	// options are the run's settings the file was read with.
	options Options
}

// Options are the run's settings a subject file is read with: what its
// templates can know before any replica starts.
type Options struct {
	// UpstreamDir fills {{.UpstreamDir}}, KubeBinDir {{.KubeBinDir}}.
	UpstreamDir, KubeBinDir string
	// FromImage says the controller starts from run.pod.image as it is:
	// in pods on a cluster whose nodes have the image or pull it (an
	// existing cluster, where nothing is packed or loaded). Then
	// run.command's program and run.pod.binary are not used and need not
	// exist here, and PodBinary is "".
	FromImage bool
}

// Static is the values every replica shares, known when the file is read.
func (f *File) Static() Vars {
	return Vars{UpstreamDir: f.options.UpstreamDir, KubeBinDir: f.options.KubeBinDir}
}

// Run says how to start one replica of the controller.
type Run struct {
	// Command is the program and its arguments. Each element is a Go
	// template with the fields of Vars; KUBECONFIG is set as well.
	Command []string `json:"command"`
	// Env adds environment variables (templates too).
	Env map[string]string `json:"env,omitempty"`
	// Manifests are applied before the controller starts (CRDs, RBAC),
	// in order: paths relative to the subject file, templates of
	// {{.UpstreamDir}}, and globs in the file name (crds/*.yaml).
	Manifests []string `json:"manifests,omitempty"`
	// DisableControllers are kube-controller-manager controllers the
	// local cluster runs without, because the subject does their work
	// (replicaset-controller for a ReplicaSet controller). Other providers
	// cannot turn controllers off; there the subject shares the work.
	DisableControllers []string `json:"disableControllers,omitempty"`
	// StartTimeout bounds the wait for the controller's first request to
	// the API server; a replica that exits or stays silent fails the start.
	// Default 30s.
	StartTimeout Duration `json:"startTimeout,omitempty"`
	// Pod runs the controller in pods instead of as local processes,
	// where the run places subjects in pods (PROVIDER=kind). v1alpha2.
	Pod *Pod `json:"pod,omitempty"`
	// NeedsNodes says the pods the subject's objects make must be
	// scheduled, run and made Ready for the controller to converge (a
	// Deployment is Available only then). On a local cluster without
	// simulated nodes they would stay Pending and the convergence
	// properties would break for want of a kubelet, not for the
	// controller: conform and explore then start the local cluster with
	// simulated nodes (LOCAL_NODES=on), and refuse to run when LOCAL_NODES
	// turns them off. Kind and existing clusters have nodes of their own.
	NeedsNodes bool `json:"needsNodes,omitempty"`
}

// Capabilities binds what the suites test. A capability left out makes
// its suite skip the subject.
type Capabilities struct {
	ScalableWorkload    *ScalableWorkload    `json:"scalableWorkload,omitempty"`
	LeaderElected       *LeaderElected       `json:"leaderElected,omitempty"`
	ForegroundComposite *ForegroundComposite `json:"foregroundComposite,omitempty"` // v1alpha2
	MovableResource     *MovableResource     `json:"movableResource,omitempty"`     // v1alpha2
	ReconciledObjects   *ReconciledObjects   `json:"reconciledObjects,omitempty"`   // v1alpha3
}

// Bound lists the capabilities the file binds, by their keys under
// capabilities.
func (c Capabilities) Bound() []string {
	var out []string
	for key, bound := range map[string]bool{
		"scalableWorkload": c.ScalableWorkload != nil, "leaderElected": c.LeaderElected != nil,
		"foregroundComposite": c.ForegroundComposite != nil, "movableResource": c.MovableResource != nil,
		"reconciledObjects": c.ReconciledObjects != nil,
	} {
		if bound {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// MovableResource binds a finalized, pausable resource and the tool that
// moves it between clusters (Cluster API's Cluster and clusterctl move).
// The finalizer suite runs a controller replica on each of two clusters,
// creates objects from Template, moves them with Mover, and judges that
// nothing is left behind (P1, P2) and that the controller never adds its
// finalizer to an object being deleted (P3).
type MovableResource struct {
	// Resource is the plural resource name; group and version come from
	// Template's apiVersion.
	Resource string `json:"resource"`
	// Template is the object to create; the suite sets name and namespace.
	Template map[string]any `json:"template"`
	// Finalizer is the controller's own finalizer.
	Finalizer string `json:"finalizer"`
	// PausedPath is the dotted path of the boolean that pauses the object.
	PausedPath string `json:"pausedPath"`
	// Status, when set, is merged into each object's status (the status
	// subresource) once the controller runs it: what the parts of a real
	// installation the harness does not run would report (Cluster API: a
	// control plane initialized), so that a real mover accepts the move.
	Status map[string]any `json:"status,omitempty"`
	// Mover moves the objects of a namespace between the clusters.
	Mover Mover `json:"mover"`
	// SideEffects, when set, is where the controller's external cleanups
	// show; P4 (no cleanup while paused) is judged only with it.
	SideEffects *SideEffects `json:"sideEffects,omitempty"`
}

// SideEffects are objects a controller writes when it cleans up after an
// object: of Resource (APIVersion's group) in the spec's namespace,
// matching Selector, naming the object they are for by its UID in label
// UIDLabel.
type SideEffects struct {
	APIVersion string `json:"apiVersion"`
	Resource   string `json:"resource"`
	Selector   string `json:"selector"`
	UIDLabel   string `json:"uidLabel"`
}

// Mover is the tool that moves objects: a command, with the templates
// {{.SourceKubeconfig}}, {{.TargetKubeconfig}} and {{.Namespace}}; its
// requests to the source cluster go through a fault proxy of its own.
type Mover struct {
	Command []string `json:"command"`
	// SlowDeletes holds each of the mover's deletes of the resource for
	// this long before it reaches the source cluster, widening the window
	// between its requests (a race a tool has with a controller lives
	// there). 0: no delay.
	SlowDeletes Duration `json:"slowDeletes,omitempty"`
}

// ForegroundComposite binds a claim whose deletion waits, in the
// foreground, for what the controller composed for it (Crossplane's
// compositeDeletePolicy: Foreground). The foreground suite creates a claim
// from Template, waits for its Ready condition, holds up the deletion of
// what it owns (Block), deletes it, and judges what the claim says while
// it waits: a condition of type Ready with status False and reason
// Deleting.
type ForegroundComposite struct {
	// Resource is the claim's plural resource name; group and version come
	// from Template's apiVersion.
	Resource string `json:"resource"`
	// Template is the claim to create; the suite sets its name and
	// namespace.
	Template map[string]any `json:"template"`
	// Block finds what the claim owns and holds up its deletion.
	Block Block `json:"block"`
	// BlockerMessage, when set, is text (a template of {{.Namespace}} and
	// {{.Name}}, the claim's) that a condition message on the claim must
	// contain while its deletion is blocked: property (b). Unset, (b) is
	// not judged.
	BlockerMessage string `json:"blockerMessage,omitempty"`
}

// Block is how the harness holds up the deletion of what a claim owns,
// from outside the controller: it adds Finalizer to the objects Selector
// finds, and removes it to let the deletion complete.
type Block struct {
	// APIVersion, Kind and Resource name the owned objects' type:
	// cluster-scoped, or in the claim's namespace.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Resource   string `json:"resource"`
	// Namespaced says the objects live in the claim's namespace.
	Namespaced bool `json:"namespaced,omitempty"`
	// Selector is a label selector finding the claim's objects, a
	// template of {{.Namespace}} and {{.Name}} (the claim's).
	Selector string `json:"selector"`
	// Finalizer is added and later removed; default
	// steadystate.dev/block.
	Finalizer string `json:"finalizer,omitempty"`
}

// ScalableWorkload binds a resource whose controller keeps a number of pods
// running (a ReplicaSet, a CloneSet). The lost-events suite creates it from
// Template in a fresh namespace, scales it through ReplicasPath and judges
// convergence by StatusReplicasPath (and ObservedGenerationPath, if set).
type ScalableWorkload struct {
	// Resource is the plural resource name; group and version come from
	// Template's apiVersion.
	Resource string `json:"resource"`
	// Template is the object to create; the suite sets its name,
	// namespace and replicas. Its pods must carry no node name of a real
	// node: a delete must remove them at once, as a cluster's simulated
	// nodes (or no nodes at all) do, since no kubelet confirms it.
	Template map[string]any `json:"template"`
	// ReplicasPath is the dotted path of the desired replica count.
	ReplicasPath string `json:"replicasPath"`
	// StatusReplicasPath is the dotted path of the observed replica count
	// the controller writes.
	StatusReplicasPath string `json:"statusReplicasPath"`
	// ObservedGenerationPath, when set, must equal metadata.generation for
	// the status to count.
	ObservedGenerationPath string `json:"observedGenerationPath,omitempty"`
	// ExpectationTimeout is how long the controller may wait before it
	// notices a lost event on its own (Kubernetes' ReplicaSet controller:
	// 5m). Recovery after a lost create is allowed this plus 15s.
	ExpectationTimeout Duration `json:"expectationTimeout,omitempty"`
	// ReplaceWithin is how long the storm spec waits, after each round of
	// pod deletions, for the controller to have replaced the deleted pods
	// before the next round (default 30s, at most 30m); the convergence
	// after the storm is allowed the longer of it and ExpectationTimeout,
	// plus 15s. A controller that backs off by design needs more:
	// Kubernetes' Job controller waits 10s doubled per pod failure since
	// its last success, so the storm's third round (six failures) waits
	// 5m20s (set 6m). Not replacing them within it makes the spec an error
	// naming this field.
	ReplaceWithin Duration `json:"replaceWithin,omitempty"`
}

// DefaultReplaceWithin is ScalableWorkload.ReplaceWithin when unset, and
// MaxReplaceWithin the most it may be.
const (
	DefaultReplaceWithin = 30 * time.Second
	MaxReplaceWithin     = 30 * time.Minute
)

// LeaderElected binds a manager whose replicas elect a leader with a Lease.
type LeaderElected struct {
	// Lease names the Lease; both fields are templates (use
	// {{.Namespace}} to elect in the spec's namespace).
	Lease ObjectRef `json:"lease"`
	// Replicas started for the election suite; default 2, at least 2.
	Replicas int `json:"replicas,omitempty"`
	// LeaseDuration and RetryPeriod are the manager's settings; failover
	// must take at most LeaseDuration + 2*RetryPeriod (+1s).
	LeaseDuration Duration `json:"leaseDuration"`
	RetryPeriod   Duration `json:"retryPeriod"`
	// LeaderOnly lists the resources only the leader may write (the
	// one-writer invariant, leader/only-holder-writes): plural names,
	// with their API group but for the core group (configmaps,
	// deployments.apps, widgets.example.com), covering their
	// subresources too, or one subresource after a slash
	// (widgets.example.com/status). Default: every resource but Leases
	// and Events; name them to spare a replica's own work (its pod's
	// status, a webhook certificate) from the invariant.
	LeaderOnly []string `json:"leaderOnly,omitempty"`
}

// ObjectRef names a namespaced object.
type ObjectRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// Duration is a time.Duration written as "30s" in the file.
type Duration struct{ time.Duration }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\", not %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"30s\"", s)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }
