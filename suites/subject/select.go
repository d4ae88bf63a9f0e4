package subject

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/image"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// reference subjects by SUBJECT name; SUBJECT_BUG may name a bug the
// catalog gives the subject.
var reference = map[string]Subject{
	"workload":  referenceWorkload{},
	"leader":    referenceLeader{},
	"cluster":   referenceCluster{},
	"composite": referenceComposite{},
	"stack":     referenceStack{},
	// The stack controller's other bindings (StackBindings).
	"stack-unwatched": referenceStack{binding: "unwatched"},
	"stack-templated": referenceStack{binding: "templated"},
}

var (
	selectOnce sync.Once
	selected   Subject
	selectErr  error
)

// Selected is the subject the run's SUBJECT_FILE or SUBJECT names, nil
// for "each suite's reference controller"; a bad choice fails the spec
// with the reason.
func Selected() Subject {
	selectOnce.Do(func() { selected, selectErr = choose(testenv.Run()) })
	if selectErr != nil {
		Fail(selectErr.Error())
	}
	return selected
}

func choose(cfg testenv.Config) (Subject, error) {
	file, name, bug := cfg.SubjectFile, cfg.Subject, cfg.Bug
	switch p := cfg.Placement; {
	case p != Processes && p != Pods:
		return nil, fmt.Errorf("SUBJECT_PLACEMENT=%q: use %s or %s", p, Processes, Pods)
	case file != "" && name != "":
		return nil, fmt.Errorf("SUBJECT=%s and SUBJECT_FILE=%s are both set: set one", name, file)
	case file != "" && bug != "":
		return nil, fmt.Errorf("SUBJECT_BUG=%s applies to the reference subjects only, not to SUBJECT_FILE=%s", bug, file)
	case file != "":
		f, err := subjectfile.Load(file, fileOptionsOf(cfg))
		if err != nil {
			return nil, err
		}
		if err := canRunIn(f, p, "SUBJECT_FILE="+file); err != nil {
			return nil, err
		}
		return &fileSubject{f: f}, nil
	}
	if ref, ok := reference[name]; ok || name == "" {
		return ref, checkBug(name, bug)
	}
	data, err := fixtures.Subjects.ReadFile("subjects/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("SUBJECT=%q is not a built-in subject: use one of %s, or SUBJECT_FILE for your own controller", name, strings.Join(builtins(), ", "))
	}
	if bug != "" {
		return nil, fmt.Errorf("SUBJECT_BUG=%s applies to the reference subjects only, not to SUBJECT=%s", bug, name)
	}
	f, err := subjectfile.Parse(data, "fixtures/subjects/"+name+".yaml", fileOptionsOf(cfg))
	if err != nil {
		return nil, err
	}
	if err := canRunIn(f, cfg.Placement, "SUBJECT="+name); err != nil {
		return nil, err
	}
	return &fileSubject{f: f}, nil
}

// canRunIn checks, before anything starts, that a subject file can run in
// placement: in pods it needs run.pod, and a run.pod.binary must be
// static to run alone in its image.
func canRunIn(f *subjectfile.File, placement, choice string) error {
	if placement != Pods {
		return nil
	}
	if f.Run.Pod == nil {
		return fmt.Errorf("%s runs its controller as local processes only: it has no run.pod (image, args); add one (see docs/subject-files.md, Subjects in pods), or set SUBJECT_PLACEMENT=%s", choice, Processes)
	}
	bin, err := f.PodBinary()
	if err != nil || bin == "" {
		return err
	}
	if err := image.Static(bin); err != nil {
		return &subjectfile.Error{File: f.Path, Subject: f.Name, Field: "run.pod.binary", Problem: err.Error(), Expected: "a statically linked program (make upstream-bins builds them so)"}
	}
	return nil
}

// fileOptionsOf is what a subject file's templates know from the run
// before any replica starts.
func fileOptionsOf(cfg testenv.Config) subjectfile.Options {
	o := subjectfile.Options{UpstreamDir: cfg.UpstreamDir, FromImage: cfg.FromImage()}
	if bins, err := local.FindBinaries(cfg.Cluster.BinDir, cfg.Cluster.KubeVersion); err == nil {
		o.KubeBinDir = filepath.Dir(bins.ControllerManager)
	}
	return o
}

// checkBug refuses a SUBJECT_BUG that is not a bug of the subject (of
// any reference subject when none is named): a typo must not run the
// correct mode and pass.
func checkBug(name, bug string) error {
	if bug == "" {
		return nil
	}
	b, ok := catalog.Lookup(bug)
	if ok && (name == "" || b.Subject == name) {
		return nil
	}
	var known []string
	for _, b := range catalog.Bugs {
		if name == "" || b.Subject == name {
			known = append(known, b.Name)
		}
	}
	who := "any reference controller"
	if name != "" {
		who = "subject " + name
	}
	return fmt.Errorf("SUBJECT_BUG=%s is not a bug of %s: use one of %s", bug, who, strings.Join(known, ", "))
}

func builtins() []string {
	names := []string{}
	for n := range reference {
		names = append(names, n)
	}
	entries, _ := fixtures.Subjects.ReadDir("subjects")
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Replaces reports whether the selected subject replaces the cluster's
// kube-controller-manager controller named (run.disableControllers): the
// subject is that controller, and the cluster runs none of its own. Only
// a local cluster leaves such a controller out; kind's and an existing
// cluster's run theirs.
func Replaces(controller string) bool {
	f, ok := Selected().(*fileSubject)
	return ok && testenv.Run().Cluster.Provider == cluster.Local && slices.Contains(f.f.Run.DisableControllers, controller)
}

// SetupCluster is a suite's SynchronizedBeforeSuite first function: it
// checks the subject choice before anything starts, then brings the
// cluster up, without the controllers a subject file replaces, and loads
// the subject's images when its replicas run in pods.
func SetupCluster(ctx SpecContext) []byte {
	cfg := testenv.Run().Cluster
	if f, ok := Selected().(*fileSubject); ok && len(f.f.Run.DisableControllers) > 0 {
		if len(cfg.Controllers) == 0 {
			cfg.Controllers = local.DefaultControllers
		}
		var rest []string
		for _, c := range cfg.Controllers {
			if !slices.Contains(f.f.Run.DisableControllers, c) {
				rest = append(rest, c)
			}
		}
		cfg.Controllers = rest
	}
	// A subject file's image is packed, or found, before the cluster
	// starts. An existing cluster's nodes have the images or pull them.
	var images []testenv.Image
	if Placement() == Pods && cfg.Provider != cluster.Existing {
		images = subjectImages(ctx)
	}
	kubeconfig := testenv.SetupClusterWith(ctx, cfg)
	if len(images) > 0 {
		testenv.LoadImages(ctx, images...)
	}
	return kubeconfig
}

// subjectImages are the images the run's subject needs in pods: the fault
// proxy's, and refctl's or the subject file's. A file's run.pod.binary is
// packed into its image here; an image it names without one must be in
// the Docker engine.
func subjectImages(ctx context.Context) []testenv.Image {
	const ours = "make images builds it"
	proxy := testenv.Image{Name: FaultProxyImage, Hint: ours}
	f, ok := Selected().(*fileSubject)
	if !ok {
		return []testenv.Image{proxy, {Name: RefctlImage, Hint: ours}}
	}
	p := f.f.Run.Pod
	bin, err := f.f.PodBinary()
	Expect(err).NotTo(HaveOccurred())
	if bin == "" {
		if err := image.InEngine(ctx, p.Image); err != nil {
			Fail((&subjectfile.Error{File: f.f.Path, Subject: f.f.Name, Field: "run.pod.image", Problem: err.Error(),
				Expected: "an image `docker images` lists, or a static program in run.pod.binary to pack into it"}).Error())
		}
		return []testenv.Image{proxy, {Name: p.Image, Hint: "subject " + f.f.Name + ": run.pod.image"}}
	}
	archive := filepath.Join(GinkgoT().TempDir(), "subject.tar")
	start := time.Now()
	Expect(image.FromBinary(bin, p.Image, archive)).To(Succeed(), "subject %s: run.pod.binary: pack %s into %s", f.f.Name, bin, p.Image)
	fmt.Fprintf(GinkgoWriter, "packed %s into %s in %s\n", bin, p.Image, time.Since(start).Round(time.Millisecond))
	return []testenv.Image{proxy, {Name: p.Image, Archive: archive, Hint: "packed from " + bin}}
}

// Lifecycle is a subject suite's testenv.Lifecycle: the cluster set up
// for the run's subject (SetupCluster) and the subject's manifests or
// reference CRDs applied in every process (Connect).
func Lifecycle() { testenv.Lifecycle(SetupCluster, Connect) }
