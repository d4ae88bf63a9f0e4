package subjectfile

import (
	"fmt"
	"maps"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"
)

// Pod says how one replica runs in a pod, for runs that place subjects in
// pods (PROVIDER=kind): the controller container beside the fault proxy
// as a sidecar, its requests reaching the API server through that proxy
// with the pods' ServiceAccount. v1alpha2.
type Pod struct {
	// Image is the controller container's image.
	Image string `json:"image"`
	// Binary, when set, is a statically linked program on this host (a
	// template, such as {{.UpstreamDir}}/...) that the harness packs into
	// Image, FROM scratch, as its entrypoint: no Docker engine build and no
	// registry. Without it, Image must be in the Docker engine the
	// provider loads images from (`docker images` lists it).
	Binary string `json:"binary,omitempty"`
	// Args are the container's arguments, templates filled in with what
	// they name inside the pod (the sidecar's kubeconfig, the pod's name,
	// /tmp, a mounted serving certificate, port 9443); default:
	// run.command without its program.
	Args []string `json:"args,omitempty"`
	// Env is added to run.env, overriding it (templates too); KUBECONFIG is
	// set to the sidecar's kubeconfig.
	Env map[string]string `json:"env,omitempty"`
	// ClusterRole is bound to the pods' ServiceAccount: the controller's
	// own, applied by run.manifests, or cluster-admin (the default).
	ClusterRole string `json:"clusterRole,omitempty"`
}

// DefaultClusterRole is what a pod's ServiceAccount is bound to when
// run.pod.clusterRole is not set.
const DefaultClusterRole = "cluster-admin"

// PodArgs is run.pod.args (default run.command without its program)
// filled in for a pod.
func (f *File) PodArgs(v Vars) ([]string, error) {
	args := f.Run.Pod.Args
	if args == nil && len(f.Run.Command) > 0 {
		args = f.Run.Command[1:]
	}
	out := make([]string, len(args))
	for i, a := range args {
		s, err := Expand(a, v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// PodEnv is run.env with run.pod.env over it, filled in for a pod, sorted
// by name; KUBECONFIG is v.Kubeconfig (the sidecar's).
func (f *File) PodEnv(v Vars) ([][2]string, error) {
	all := maps.Clone(f.Run.Env)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, f.Run.Pod.Env)
	all["KUBECONFIG"] = v.Kubeconfig
	var out [][2]string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		s, err := Expand(all[k], v)
		if err != nil {
			return nil, err
		}
		out = append(out, [2]string{k, s})
	}
	return out, nil
}

// PodBinary is run.pod.binary filled in ("" when the image is not built
// from a binary).
func (f *File) PodBinary() (string, error) {
	if f.Run.Pod == nil || f.Run.Pod.Binary == "" || f.options.FromImage {
		return "", nil
	}
	return Expand(f.Run.Pod.Binary, f.Static())
}

func (f *File) validatePod(bad func(field, problem, expected string)) {
	p := f.Run.Pod
	if p == nil {
		return
	}
	const at = "run.pod."
	if f.APIVersion == APIVersionV1 {
		bad("run.pod", "not in "+APIVersionV1, "apiVersion "+APIVersionV2+" or later (nothing else changes)")
	}
	if p.Image == "" {
		bad(at+"image", "missing", "the controller's image, such as example.com/my-controller:v1.2.3")
	} else if _, err := name.NewTag(p.Image, name.StrictValidation); err != nil {
		bad(at+"image", fmt.Sprintf("%q is not an image name with a tag: %v", p.Image, err), "an image name with a tag, such as example.com/my-controller:v1.2.3")
	}
	if p.Binary != "" && !f.options.FromImage {
		if err := f.checkProgram(p.Binary); err != nil {
			bad(at+"binary", err.Error(), "a static executable on this host, packed into run.pod.image")
		}
	}
	for i, a := range p.Args {
		if _, err := Expand(a, sampleVars); err != nil {
			bad(fmt.Sprintf(at+"args[%d]", i), err.Error(), "a template using only "+varNames)
		}
	}
	for k, v := range p.Env {
		if _, err := Expand(v, sampleVars); err != nil {
			bad(at+"env."+k, err.Error(), "a template using only "+varNames)
		}
	}
	if p.ClusterRole == "" {
		p.ClusterRole = DefaultClusterRole
	}
}
