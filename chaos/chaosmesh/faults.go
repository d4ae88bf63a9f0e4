package chaosmesh

import (
	"context"
	"errors"
	"time"

	"github.com/chaos-mesh/chaos-mesh/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/chaos"
)

// PodKill kills one pod (or all, with All) that Labels pick in Namespace,
// as a PodChaos pod-kill experiment.
type PodKill struct {
	Namespace string
	Labels    map[string]string
	All       bool
	Timeout   time.Duration

	exp experiment
}

var (
	_ chaos.Fault = (*PodKill)(nil)
	_ chaos.Fault = (*NetworkPartition)(nil)
)

// Name is chaosmesh-pod-kill.
func (f *PodKill) Name() string { return "chaosmesh-pod-kill" }

// Available needs the PodChaos CRD and a selector.
func (f *PodKill) Available(t chaos.Target) error {
	if f.Namespace == "" || len(f.Labels) == 0 {
		return errors.New("pod kill needs a namespace and labels")
	}
	return f.experiment().available(t)
}

func (f *PodKill) experiment() *experiment {
	f.exp.resource, f.exp.kind, f.exp.timeout = "podchaos", "PodChaos", f.Timeout
	return &f.exp
}

// Inject creates the PodChaos and waits for AllInjected.
func (f *PodKill) Inject(ctx context.Context, t chaos.Target) (chaos.Injection, error) {
	obj := &v1alpha1.PodChaos{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace},
		Spec: v1alpha1.PodChaosSpec{
			Action:            v1alpha1.PodKillAction,
			ContainerSelector: v1alpha1.ContainerSelector{PodSelector: selector(f.Namespace, f.Labels, f.All)},
		},
	}
	inj, err := f.experiment().create(ctx, t, f.Namespace, obj)
	inj.End = time.Now()
	return inj, err
}

// Recover deletes the PodChaos.
func (f *PodKill) Recover(ctx context.Context, t chaos.Target) error {
	return f.experiment().remove(ctx, t)
}

// NetworkPartition partitions the pods that Labels pick from those that
// TargetLabels pick, in both directions, for Duration, as a NetworkChaos
// partition experiment.
type NetworkPartition struct {
	Namespace    string
	Labels       map[string]string
	TargetLabels map[string]string
	Duration     time.Duration
	Timeout      time.Duration

	exp experiment
}

// Name is chaosmesh-network-partition.
func (f *NetworkPartition) Name() string { return "chaosmesh-network-partition" }

// Available needs the NetworkChaos CRD, selectors and a duration.
func (f *NetworkPartition) Available(t chaos.Target) error {
	if f.Namespace == "" || len(f.Labels) == 0 || len(f.TargetLabels) == 0 || f.Duration <= 0 {
		return errors.New("network partition needs a namespace, labels, target labels and a duration")
	}
	return f.experiment().available(t)
}

func (f *NetworkPartition) experiment() *experiment {
	f.exp.resource, f.exp.kind, f.exp.timeout = "networkchaos", "NetworkChaos", f.Timeout
	return &f.exp
}

// Inject creates the NetworkChaos, waits for AllInjected, holds it for
// Duration, then deletes it and waits until Chaos Mesh has recovered it.
func (f *NetworkPartition) Inject(ctx context.Context, t chaos.Target) (chaos.Injection, error) {
	duration := f.Duration.String()
	target := selector(f.Namespace, f.TargetLabels, true)
	obj := &v1alpha1.NetworkChaos{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace},
		Spec: v1alpha1.NetworkChaosSpec{
			Action:      v1alpha1.PartitionAction,
			PodSelector: selector(f.Namespace, f.Labels, true),
			Target:      &target,
			Direction:   v1alpha1.Both,
			Duration:    &duration,
		},
	}
	inj, err := f.experiment().create(ctx, t, f.Namespace, obj)
	if err != nil {
		return inj, err
	}
	select {
	case <-time.After(f.Duration):
	case <-ctx.Done():
		return inj, ctx.Err()
	}
	err = f.Recover(ctx, t)
	inj.End = time.Now()
	return inj, err
}

// Recover deletes the NetworkChaos.
func (f *NetworkPartition) Recover(ctx context.Context, t chaos.Target) error {
	return f.experiment().remove(ctx, t)
}

func selector(namespace string, labels map[string]string, all bool) v1alpha1.PodSelector {
	mode := v1alpha1.OneMode
	if all {
		mode = v1alpha1.AllMode
	}
	return v1alpha1.PodSelector{
		Selector: v1alpha1.PodSelectorSpec{GenericSelectorSpec: v1alpha1.GenericSelectorSpec{
			Namespaces: []string{namespace}, LabelSelectors: labels,
		}},
		Mode: mode,
	}
}
