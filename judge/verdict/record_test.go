package verdict

import (
	"strings"
	"testing"
)

func TestMessageIsOneLinePerBrokenProperty(t *testing.T) {
	conv := Property{ID: "s/converges", Stage: Convergence, Sentence: "it converges"}
	inv := Property{ID: "s/safe", Stage: Invariant, Sentence: "it is safe"}
	pre := Property{ID: "s/fault", Stage: Assumption, Sentence: "the fault happened"}
	held := func(p Property) Record { return Record{Property: p, Outcome: Held} }
	broke := func(p Property, why string) Record { return Record{Property: p, Outcome: Broken, Reason: why} }

	if m := Message([]Record{held(pre), held(conv), held(inv)}); m != "" {
		t.Errorf("all held: %q", m)
	}
	recs := []Record{held(pre), broke(conv, "still 2 of 3"), broke(inv, "4 pods for 3")}
	if m := Message(recs); m != "convergence s/converges broken: still 2 of 3\ninvariant s/safe broken: 4 pods for 3" {
		t.Errorf("broken: %q", m)
	}
	if ids := BrokenIDs(append(recs, broke(conv, "again"))); strings.Join(ids, ",") != "s/converges,s/safe" {
		t.Errorf("BrokenIDs = %v", ids)
	}
	recs = []Record{broke(pre, "no 410"), {Property: conv, Outcome: NotEvaluated, Reason: "assumption s/fault did not hold"}}
	if m := Message(recs); m != "error: assumption s/fault did not hold: no 410" {
		t.Errorf("assumption: %q", m)
	}
	if m := Message([]Record{held(pre), {Property: conv, Outcome: NotEvaluated, Reason: "the move back failed"}}); !strings.HasPrefix(m, "error: convergence s/converges not evaluated") {
		t.Errorf("not evaluated: %q", m)
	}
	r := Record{Property: conv, Outcome: Held, Figures: map[string]string{"took": "2s", "bound": "5s"}}
	if s := r.String(); s != "held convergence s/converges (bound=5s, took=2s)" {
		t.Errorf("String = %q", s)
	}
	if conv.Suite() != "s" {
		t.Errorf("Suite = %q", conv.Suite())
	}
}

// A reason keeps an error's text and leaves out what Gomega prints of
// the error value beyond it: its type and address, and its fields.
func TestOneLineLeavesOutGomegaValueDumps(t *testing.T) {
	msg := "Timed out after 30.001s.\nthe default service account of namespace steady-68cxd\nExpected success, but got an error:\n    <*errors.StatusError | 0x4a89d198000>: \n    serviceaccounts \"default\" not found\n    {\n        ErrStatus: {\n            TypeMeta: {Kind: \"\", APIVersion: \"\"},\n            Code: 404,\n        },\n    }\nand after it"
	want := `Timed out after 30.001s. / the default service account of namespace steady-68cxd / Expected success, but got an error: / serviceaccounts "default" not found / and after it`
	if got := OneLine(msg); got != want {
		t.Errorf("OneLine =\n%s\nwant\n%s", got, want)
	}
	short := "Expected\n    <*errors.errorString | 0xc000012345>: \n    boom\n    {s: \"boom\"}\nto be nil"
	if got, want := OneLine(short), "Expected / boom / to be nil"; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
	// Braces in a dump's quoted strings neither end it early nor keep it open.
	quoted := "Expected success, but got an error:\n    <*errors.StatusError | 0x4a89d198000>: \n    bad template\n    {\n        Message: \"field {{.Name}} is not \\\"}\\\" closed}\",\n        Reason: \"{\",\n    }\nand after it"
	if got, want := OneLine(quoted), "Expected success, but got an error: / bad template / and after it"; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
	if got, want := OneLine("Expected\n    <int>: 5\nto equal\n    <int>: 6"), "Expected / <int>: 5 / to equal / <int>: 6"; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
}
