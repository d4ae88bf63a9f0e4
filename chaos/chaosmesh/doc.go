// Package chaosmesh expresses steadystate faults as Chaos Mesh experiments
// (PodChaos, NetworkChaos) on clusters that serve the chaos-mesh.org CRDs.
// It creates the experiment, waits for Chaos Mesh to report AllInjected,
// holds it for its duration, and deletes it again on recovery, also after a
// failure or interruption, so no experiment is left behind.
package chaosmesh
