package judge

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestQualifiedConditionType: an ignore path may name a condition whose
// type is qualified (a DNS prefix and a slash, dots): its dots are not
// the path's, so it resolves to that condition and masks it alone.
func TestQualifiedConditionType(t *testing.T) {
	if got := fieldPath("status.conditions[example.com/Synced.v2].status"); !slices.Equal(got, []string{"status", "conditions[example.com/Synced.v2]", "status"}) {
		t.Fatalf("fieldPath: %q", got)
	}
	obj := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
		map[string]any{"type": "example.com/Synced.v2", "status": "False"},
	}}}
	if !resolves(obj, fieldPath("status.conditions[example.com/Synced.v2].status")) {
		t.Error("the qualified condition does not resolve")
	}
	if resolves(obj, fieldPath("status.conditions[example.com/Other].status")) {
		t.Error("a qualified type no condition has resolves")
	}
	if !ignored("status.conditions[example.com/Synced.v2]", "status.conditions[example.com/Synced.v2].status") || ignored("status.conditions[example.com/Synced.v2]", "status.conditions[Ready].status") {
		t.Error("the qualified condition's ignore path masks the wrong fields")
	}
}

// TestRecordedGeneratedSiblingsAreOneState re-judges the zoo's
// garbage-collector orphan subject recorded by `make zoo
// ZOO_SUBJECTS=endpointslice,gc-foreground,gc-orphan ZOO_RUNS=5` (gc-orphan
// run 5, the restart spec): web was deleted with propagationPolicy
// Orphan, the collector released both its pods, and heir, holding four
// identical pods, deleted two: one of its own and one adopted, where both
// reference runs deleted its own two. Which of equal pods survive is the
// ReplicaSet controller's choice among equally ranked pods, no part of the
// end state: held. Siblings that differ are still told apart: one of the
// pods with another label breaks it, naming the pods.
func TestRecordedGeneratedSiblingsAreOneState(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("gc-orphan", "steadystate-gc-orphan-restart-siblings.json"))
	}
	if got := judged(t, catalog.SteadySameEndState.ID, read()); got.Outcome != verdict.Held {
		t.Errorf("as recorded: %s %q, want held: heir keeps two of four identical pods either way", got.Outcome, got.Reason)
	}
	e := read()
	relabelled := false
	for _, r := range e.Histories["steady/pods"] {
		if r.Object == nil || r.Object["metadata"].(map[string]any)["name"] != "heir-zdm52" {
			continue
		}
		r.Object["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "tier": "other"}
		relabelled = true
	}
	if !relabelled {
		t.Fatal("the recorded evidence has no pod heir-zdm52")
	}
	got := judged(t, catalog.SteadySameEndState.ID, e)
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "ReplicaSet/heir > Pod/heir-*: 0 objects in the reference, 1 after the faults") {
		t.Errorf("a kept pod with another label: %s %q, want broken naming heir's pods", got.Outcome, got.Reason)
	}
}

// TestSiblingsVaryingBetweenReferencesMaskNoCount: the two reference runs
// may keep differently made siblings too (the ReplicaSet's tie-break is
// its pods' UIDs). What varies between them is learned field by field,
// never as their counts by prefix, which would then excuse any number of
// pods: on the recorded gc-orphan evidence, with the second reference's
// pods made by heir, a faulted run that kept no pod, or one of its two,
// is broken, and one that kept both still holds.
func TestSiblingsVaryingBetweenReferencesMaskNoCount(t *testing.T) {
	for _, keep := range [][]string{nil, {"web-8bltg"}, {"web-8bltg", "heir-zdm52"}} {
		e := readEvidence(t, filepath.Join("gc-orphan", "steadystate-gc-orphan-restart-siblings.json"))
		var refs []*EndState
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyReferences.Name]), &refs); err != nil {
			t.Fatal(err)
		}
		objects := map[string]map[string]any{}
		for k, o := range refs[1].Objects {
			md := o["metadata"].(map[string]any)
			if md["generateName"] == "web-" {
				md["generateName"] = "heir-"
				md["name"] = "heir-" + strings.TrimPrefix(md["name"].(string), "web-")
				k = strings.Replace(k, "/web-", "/heir-", 1)
			}
			objects[k] = o
		}
		refs[1].Objects = objects
		data, _ := json.Marshal(refs)
		e.Facts[FactSteadyReferences.Name] = string(data)
		if l := learned(refs); l.counts["ReplicaSet/heir > Pod/heir-*"][0] != l.counts["ReplicaSet/heir > Pod/heir-*"][1] || l.counts["ReplicaSet/heir > Pod/web-*"][0] != l.counts["ReplicaSet/heir > Pod/web-*"][1] {
			t.Fatalf("the references' differently made pods were learned as counts that vary: %v", l.counts)
		}
		// The faulted run keeps the pods named, of the two it ended with.
		var pods []oracle.EventRecord
		for _, r := range e.Histories["steady/pods"] {
			if name, _ := r.Object["metadata"].(map[string]any)["name"].(string); slices.Contains(keep, name) {
				pods = append(pods, r)
			}
		}
		e.Histories["steady/pods"] = pods
		want := verdict.Broken
		if len(keep) == 2 {
			want = verdict.Held
		}
		if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != want {
			t.Errorf("a faulted run that kept %v where both references kept 2 pods: %s %q, want %s", keep, got.Outcome, got.Reason, want)
		}
	}
}

// TestGeneratedOwnersNameTheirChildren: a Job whose name was generated
// (w-abcde) names its pods after it (w-abcde-xyz12); two runs generate
// other names, and their pods are the same identity all the same.
func TestGeneratedOwnersNameTheirChildren(t *testing.T) {
	run := func(job, pod string) map[string]string {
		obj := func(kind, name, generate, owner, ownerUID, uid string) *unstructured.Unstructured {
			md := map[string]any{"name": name, "namespace": "ns", "uid": uid}
			if generate != "" {
				md["generateName"] = generate
			}
			if owner != "" {
				md["ownerReferences"] = []any{map[string]any{"kind": "X", "name": owner, "uid": ownerUID, "controller": true}}
			}
			return &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": md}}
		}
		s := oracle.State{
			"w":   obj("Widget", "w", "", "", "", "u-w"),
			"job": obj("Job", job, "w-", "w", "u-w", "u-job"),
			"pod": obj("Pod", pod, job+"-", job, "u-job", "u-pod"),
		}
		return Identities(s, "ns")
	}
	a, b := run("w-abcde", "w-abcde-xyz12"), run("w-fghij", "w-fghij-qrs34")
	if a["pod"] != b["pod"] || a["pod"] != "Widget/w > Job/w-* > Pod/w-*-*" {
		t.Errorf("the pods of generated Jobs: %q and %q, want both Widget/w > Job/w-* > Pod/w-*-*", a["pod"], b["pod"])
	}
}
