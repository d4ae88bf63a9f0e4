package subjectfile_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// A patch of a Secret is described by the fields it sets, never by their
// values; a value below data or stringData of any kind is hidden too,
// and a patch of anything else reads as before.
func TestChangeStringShowsNoSecretValue(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		merge map[string]any
		want  string
		never []string
	}{
		{"Secret", map[string]any{"stringData": map[string]any{"password": "hunter2-rotated"}},
			`patch Secret/db {"stringData":{"password":"<redacted>"}}`, []string{"hunter2-rotated"}},
		{"Secret", map[string]any{"data": map[string]any{"token": base64.StdEncoding.EncodeToString([]byte("tok-123456"))}, "metadata": map[string]any{"labels": map[string]any{"rotated": "yes"}}},
			`patch Secret/db {"data":{"token":"<redacted>"},"metadata":{"labels":{"rotated":"<redacted>"}}}`, []string{"dG9r"}},
		{"ConfigMap", map[string]any{"data": map[string]any{"dsn": "postgres://u:hunter2@db"}, "metadata": map[string]any{"labels": map[string]any{"a": "b"}}},
			`patch ConfigMap/db {"data":{"dsn":"<redacted>"},"metadata":{"labels":{"a":"b"}}}`, []string{"hunter2"}},
		{"Widget", map[string]any{"spec": map[string]any{"stringData": []any{"x-value", 3}, "size": 2}},
			`patch Widget/db {"spec":{"size":2,"stringData":["<redacted>","<redacted>"]}}`, []string{"x-value"}},
		{"ReplicaSet", map[string]any{"spec": map[string]any{"replicas": 3, "template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{"r": "<2>"}}}}},
			`patch ReplicaSet/db {"spec":{"replicas":3,"template":{"metadata":{"annotations":{"r":"<2>"}}}}}`, nil},
		{"Secret", map[string]any{"stringData": map[string]any{"gone": nil}},
			`patch Secret/db {"stringData":{"gone":null}}`, nil},
	} {
		c := subjectfile.Change{Patch: &subjectfile.PatchChange{Object: subjectfile.ObjectName{Kind: tc.kind, Name: "db"}, Merge: tc.merge}}
		got := c.String()
		if got != tc.want {
			t.Errorf("%s patch: String() = %s, want %s", tc.kind, got, tc.want)
		}
		for _, v := range tc.never {
			if strings.Contains(got, v) {
				t.Errorf("%s patch: String() = %s shows %q", tc.kind, got, v)
			}
		}
		if tc.never != nil && !strings.Contains(mustJSON(t, tc.merge), tc.never[0][:4]) {
			t.Errorf("%s patch: String() changed the patch itself: %v", tc.kind, tc.merge)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The subject file a bundle keeps holds no value of a Secret it names
// (inline, patched, or in a manifest file), no secret-looking environment
// value and none given a Secret's value, yet it is still a subject file
// of the same fields, comments and all.
func TestRedactedCopyHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	planted := map[string]string{
		"inline":  "plantedA-inline-value",
		"data":    "plantedD-data-value",
		"patch":   "plantedB-patch-value",
		"env":     "plantedC-env-value",
		"podenv":  "plantedE-pod-env-value",
		"file":    "plantedF-file-value",
		"crossed": "plantedG-manifest-value",
	}
	writeFile(t, filepath.Join(dir, "secret.yaml"), `apiVersion: v1
kind: Secret
metadata: {name: from-file, namespace: "{{.Namespace}}"}
stringData: {password: `+planted["file"]+`}
`, 0o644)
	writeFile(t, filepath.Join(dir, "rbac.yaml"), `apiVersion: v1
kind: Secret
metadata: {name: applied-first}
data: {token: `+base64.StdEncoding.EncodeToString([]byte(planted["crossed"]))+`}
`, 0o644)
	subject := `apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: planted
# the operator, as it is
run:
  command: [/bin/true, "--kubeconfig={{.Kubeconfig}}", "--db-dsn=postgres://u:` + planted["inline"] + `@db"]
  env:
    DB_PASSWORD: ` + planted["env"] + `
    FROM_FILE: ` + planted["file"] + `
    FROM_MANIFEST: ` + planted["crossed"] + `
    LOG_LEVEL: debug
  manifests: [rbac.yaml]
  pod:
    image: example.com/op:v1
    env:
      API_TOKEN: ` + planted["podenv"] + `
      MODE: fast
capabilities:
  reconciledObjects:
    objects:
      - apiVersion: v1
        kind: Secret
        metadata: {name: db}
        stringData:
          password: ` + planted["inline"] + ` # ` + planted["inline"] + `
        data:
          other: ` + base64.StdEncoding.EncodeToString([]byte(planted["data"])) + `
      - secret.yaml
      - apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {level: debug}
    changes:
      - patch: {object: {kind: Secret, name: db}, merge: {stringData: {password: ` + planted["patch"] + `}}}
      - patch: {object: {kind: ConfigMap, name: settings}, merge: {data: {level: info}}}
      - delete: {kind: ConfigMap, name: settings, propagationPolicy: Orphan}
`
	path := filepath.Join(dir, "subject.yaml")
	if err := os.WriteFile(path, []byte(subject), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := subjectfile.RedactedCopy(path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for name, v := range planted {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(text, form) {
				t.Errorf("the copy holds the %s value (%q):\n%s", name, form, text)
			}
		}
	}
	for _, kept := range []string{"# the operator, as it is", "LOG_LEVEL: debug", "MODE: fast", "level: debug", "--kubeconfig={{.Kubeconfig}}", "- secret.yaml", "name: planted", "propagationPolicy: Orphan"} {
		if !strings.Contains(text, kept) {
			t.Errorf("the copy lost %q:\n%s", kept, text)
		}
	}
	// Still a subject file, with the same fields: each redacted value
	// the string <redacted>.
	copyPath := filepath.Join(dir, "copy.yaml")
	if err := os.WriteFile(copyPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := subjectfile.Load(copyPath, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatalf("the copy is not a subject file: %v\n%s", err, text)
	}
	r := subjectfile.RedactedValue
	if f.Run.Env["DB_PASSWORD"] != r || f.Run.Env["FROM_FILE"] != r || f.Run.Env["FROM_MANIFEST"] != r || f.Run.Env["LOG_LEVEL"] != "debug" || f.Run.Pod.Env["API_TOKEN"] != r {
		t.Errorf("run.env %v, run.pod.env %v", f.Run.Env, f.Run.Pod.Env)
	}
	if got := f.Run.Command[2]; got != r {
		t.Errorf("an argument holding a Secret's value reads %q", got)
	}
	secret := f.Capabilities.ReconciledObjects.Objects[0].(map[string]any)
	if secret["stringData"].(map[string]any)["password"] != r || secret["data"].(map[string]any)["other"] != r {
		t.Errorf("the inline Secret reads %v", secret)
	}
	if p := f.Capabilities.ReconciledObjects.Changes[0].Patch.Merge; p["stringData"].(map[string]any)["password"] != r {
		t.Errorf("the Secret's patch reads %v", p)
	}
	if len(f.Capabilities.ReconciledObjects.Changes) != 3 || len(f.Capabilities.ReconciledObjects.Objects) != 3 {
		t.Errorf("the copy has %d changes and %d objects, want 3 and 3", len(f.Capabilities.ReconciledObjects.Changes), len(f.Capabilities.ReconciledObjects.Objects))
	}
	// The manifest files are read, not changed.
	if data, _ := os.ReadFile(filepath.Join(dir, "secret.yaml")); !strings.Contains(string(data), planted["file"]) {
		t.Error("the manifest file was changed")
	}
	if data, _ := os.ReadFile(path); string(data) != subject {
		t.Error("the subject file was changed")
	}
}

// A file with no secret reads as the same subject file in its copy.
func TestRedactedCopyKeepsAFileWithoutSecrets(t *testing.T) {
	path := filepath.Join("..", "fixtures", "zoo", "replicaset.yaml")
	out, err := subjectfile.RedactedCopy(path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), subjectfile.RedactedValue) {
		t.Errorf("a file without secrets was redacted:\n%s", out)
	}
	orig, err := subjectfile.Load(path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	copied, err := subjectfile.Parse(out, path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	if orig.Name != copied.Name || len(orig.Capabilities.ReconciledObjects.Changes) != len(copied.Capabilities.ReconciledObjects.Changes) || orig.Capabilities.ReconciledObjects.Changes[2].String() != copied.Capabilities.ReconciledObjects.Changes[2].String() {
		t.Errorf("the copy reads differently: %+v", copied.Capabilities.ReconciledObjects)
	}
	if _, err := subjectfile.Redact([]byte("a: [b"), "bad.yaml", subjectfile.Options{}); err == nil {
		t.Error("a file that is not YAML was copied")
	}
}
