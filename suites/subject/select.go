package subject

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/reference/wiring"
	"github.com/steadystate-dev/steadystate/suites/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// reference subjects by SUBJECT name, with the refctl components whose
// bugs SUBJECT_BUG may name.
var reference = map[string]struct {
	subject    Subject
	components []string
}{
	"workload":  {referenceWorkload{}, []string{"workload"}},
	"leader":    {referenceLeader{}, []string{"leader"}},
	"cluster":   {referenceCluster{}, []string{"cluster", "move"}},
	"composite": {referenceComposite{}, []string{"composite"}},
}

var (
	selectOnce sync.Once
	selected   Subject
	selectErr  error
)

// Selected is the subject SUBJECT_FILE or SUBJECT names, nil for "each
// suite's reference controller"; a bad choice fails the spec with the
// reason.
func Selected() Subject {
	selectOnce.Do(func() {
		selected, selectErr = choose(os.Getenv("SUBJECT_FILE"), os.Getenv("SUBJECT"), os.Getenv("SUBJECT_BUG"))
	})
	if selectErr != nil {
		Fail(selectErr.Error())
	}
	return selected
}

func choose(file, name, bug string) (Subject, error) {
	switch p := Placement(); {
	case p != Processes && p != Pods:
		return nil, fmt.Errorf("SUBJECT_PLACEMENT=%q: use %s or %s", p, Processes, Pods)
	case file != "" && p == Pods:
		return nil, fmt.Errorf("SUBJECT_FILE=%s runs its command as local processes: set SUBJECT_PLACEMENT=%s (subject files name no images yet)", file, Processes)
	case file != "" && name != "":
		return nil, fmt.Errorf("SUBJECT=%s and SUBJECT_FILE=%s are both set: set one", name, file)
	case file != "" && bug != "":
		return nil, fmt.Errorf("SUBJECT_BUG=%s applies to the reference subjects only, not to SUBJECT_FILE=%s", bug, file)
	case file != "":
		f, err := subjectfile.Load(file)
		if err != nil {
			return nil, err
		}
		return &fileSubject{f: f}, nil
	}
	if ref, ok := reference[name]; ok || name == "" {
		return ref.subject, checkBug(name, ref.components, bug)
	}
	data, err := fixtures.Subjects.ReadFile("subjects/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("SUBJECT=%q is not a built-in subject: use one of %s, or SUBJECT_FILE for your own controller", name, strings.Join(builtins(), ", "))
	}
	if Placement() == Pods {
		return nil, fmt.Errorf("SUBJECT=%s runs its command as local processes: set SUBJECT_PLACEMENT=%s", name, Processes)
	}
	if bug != "" {
		return nil, fmt.Errorf("SUBJECT_BUG=%s applies to the reference subjects only, not to SUBJECT=%s", bug, name)
	}
	f, err := subjectfile.Parse(data, "fixtures/subjects/"+name+".yaml")
	if err != nil {
		return nil, err
	}
	return &fileSubject{f: f}, nil
}

// checkBug refuses a SUBJECT_BUG that is not a bug of the subject's
// components (every component's when no SUBJECT is named): a typo must
// not run the correct mode and pass.
func checkBug(name string, components []string, bug string) error {
	if bug == "" {
		return nil
	}
	if components == nil {
		for c := range wiring.Bugs {
			components = append(components, c)
		}
		sort.Strings(components)
	}
	var known []string
	for _, c := range components {
		if slices.Contains(wiring.Bugs[c], bug) {
			return nil
		}
		known = append(known, wiring.Bugs[c]...)
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

// SetupCluster is a suite's SynchronizedBeforeSuite first function: it
// checks the subject choice before anything starts, then brings the
// cluster up, without the controllers a subject file replaces, and loads
// the subject's images when its replicas run in pods.
func SetupCluster(ctx SpecContext) []byte {
	if f, ok := Selected().(*fileSubject); ok && len(f.f.Run.DisableControllers) > 0 {
		var rest []string
		for _, c := range local.DefaultControllers {
			if !slices.Contains(f.f.Run.DisableControllers, c) {
				rest = append(rest, c)
			}
		}
		Expect(os.Setenv("KCM_CONTROLLERS", strings.Join(rest, ","))).To(Succeed())
	}
	kubeconfig := testenv.SetupCluster(ctx)
	if Placement() == Pods {
		testenv.LoadImages(ctx, RefctlImage, FaultProxyImage)
	}
	return kubeconfig
}
