package upstream

// Release is one upstream binary at one pinned version, built from the Go
// module proxy.
type Release struct {
	// Name is the folder the build goes to under the upstream directory,
	// as subject files name it ({{.UpstreamDir}}/<Name>/...).
	Name string
	// Module and Version are what the proxy serves.
	Module, Version string
	// Package is the main package inside the module ("." for its root).
	Package string
	// Binary is the output file name.
	Binary string
	// Wrapper, when set, is a folder of this repository holding a small
	// module whose main package imports Module (a library, not a
	// program): it is copied and built with Module required at Version.
	// Otherwise the module itself is built, in a writable copy of its
	// download so that its own go.mod, replace directives included,
	// applies (`go install mod@version` refuses replace directives).
	Wrapper string
	// Replace are `go mod edit -replace` arguments (old=new@version) for
	// the module's copy: a replace onto a nested module's folder, which
	// the module's download leaves out (Chaos Mesh's ./api), is pointed
	// at that module's version on the proxy instead.
	Replace []string
	// Copy lists folders of the module copied next to the binary, by
	// their path in the module and the name they get (CRDs).
	Copy []CopyDir
	// Cgo links the binary with cgo, statically (glibc's libc.a, gcc):
	// for a program that will not build without C (Chaos Mesh's
	// chaos-daemon). Its name lookups use Go's own resolvers (netgo,
	// osusergo), which a static glibc cannot load at run time.
	Cgo bool
}

// CopyDir is a folder of a module kept with its build.
type CopyDir struct {
	From, To string
	// Labels are added to every object of the folder's YAML files: what
	// an installer adds when it installs them (clusterctl init labels the
	// Cluster API CRDs so that clusterctl move finds their types).
	Labels map[string]string
}

// ChaosMesh is the Chaos Mesh controller-manager's release: not a
// subject, the controller that delivers the chaosmesh adapter's PodChaos.
const ChaosMesh = "chaos-mesh@v0.9.1-0.20260902003049-47411975a8cb"

// ChaosDaemon is Chaos Mesh's chaos-daemon of the same commit: what
// applies a NetworkChaos inside a pod's network namespace on its node.
const ChaosDaemon = "chaos-daemon@v0.9.1-0.20260902003049-47411975a8cb"

// Releases are every upstream build the cells and the tests use.
var Releases = []Release{
	{
		Name: "controller-runtime@v0.17.2", Module: "sigs.k8s.io/controller-runtime", Version: "v0.17.2",
		Package: ".", Binary: "crmanager", Wrapper: "fixtures/upstream/crmanager",
	},
	{
		Name: "controller-runtime@v0.17.3", Module: "sigs.k8s.io/controller-runtime", Version: "v0.17.3",
		Package: ".", Binary: "crmanager", Wrapper: "fixtures/upstream/crmanager",
	},
	{
		Name: "crossplane@v1.15.3", Module: "github.com/crossplane/crossplane", Version: "v1.15.3",
		Package: "./cmd/crossplane", Binary: "crossplane",
		Copy: []CopyDir{{From: "cluster/crds", To: "crds"}},
	},
	{
		Name: "crossplane@v1.16.0", Module: "github.com/crossplane/crossplane", Version: "v1.16.0",
		Package: "./cmd/crossplane", Binary: "crossplane",
		Copy: []CopyDir{{From: "cluster/crds", To: "crds"}},
	},
	{
		Name: "cluster-api@v1.9.4", Module: "sigs.k8s.io/cluster-api", Version: "v1.9.4",
		Package: ".", Binary: "cluster-api-manager",
		Copy: []CopyDir{{From: "config/crd/bases", To: "crds",
			Labels: map[string]string{"clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/provider": "cluster-api"}}},
	},
	{
		Name: "clusterctl@v1.9.4", Module: "sigs.k8s.io/cluster-api", Version: "v1.9.4",
		Package: "./cmd/clusterctl", Binary: "clusterctl",
	},
	{
		Name: "clusterctl@v1.9.5", Module: "sigs.k8s.io/cluster-api", Version: "v1.9.5",
		Package: "./cmd/clusterctl", Binary: "clusterctl",
	},
	{
		// The main module has no tags (a pseudo-version of master); its
		// ./api is a nested module the download leaves out: the one this
		// repository's go.mod pins instead.
		Name: ChaosMesh, Module: "github.com/chaos-mesh/chaos-mesh", Version: "v0.9.1-0.20260902003049-47411975a8cb",
		Package: "./cmd/chaos-controller-manager", Binary: "chaos-controller-manager",
		Replace: []string{"github.com/chaos-mesh/chaos-mesh/api=github.com/chaos-mesh/chaos-mesh/api@v0.0.0-20260906172039-d70b66ad97ac"},
		Copy:    []CopyDir{{From: "config/crd/bases", To: "crds"}},
	},
	{
		// It imports chaos-driver's client, which is C.
		Name: ChaosDaemon, Module: "github.com/chaos-mesh/chaos-mesh", Version: "v0.9.1-0.20260902003049-47411975a8cb",
		Package: "./cmd/chaos-daemon", Binary: "chaos-daemon", Cgo: true,
		Replace: []string{"github.com/chaos-mesh/chaos-mesh/api=github.com/chaos-mesh/chaos-mesh/api@v0.0.0-20260906172039-d70b66ad97ac"},
	},
	{
		Name: "kruise@v1.8.0", Module: "github.com/openkruise/kruise", Version: "v1.8.0",
		Package: ".", Binary: "kruise-manager",
		Copy: []CopyDir{{From: "config/crd/bases", To: "crds"}},
	},
}

// Lookup finds a release by name.
func Lookup(name string) (Release, bool) {
	for _, r := range Releases {
		if r.Name == name {
			return r, true
		}
	}
	return Release{}, false
}
