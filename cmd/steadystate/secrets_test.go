package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// plantedSubject binds Kubernetes' EndpointSlice controller's steady
// state with a Secret among its objects (inline, and one more in a
// manifest file), a change that patches the Secret, and a secret in the
// controller's environment: %[1]s, %[2]s and %[3]s are the three planted
// values.
const plantedSubject = `apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: planted
run:
  command:
    - "{{.KubeBinDir}}/kube-controller-manager"
    - --kubeconfig={{.Kubeconfig}}
    - --controllers=endpointslice-controller
    - --leader-elect=false
    - --secure-port=0
    - --v=2
  env:
    DB_PASSWORD: %[3]s
  disableControllers: [endpointslice-controller]
capabilities:
  reconciledObjects:
    objects:
      - apiVersion: v1
        kind: Service
        metadata: {name: web}
        spec:
          selector: {app: web}
          ports: [{name: http, port: 80}]
      - apiVersion: v1
        kind: Secret
        metadata: {name: db}
        stringData: {password: %[1]s}
      - secret.yaml
    changes:
      # The first is the other party's write the fault specs make while
      # the controller's watches are faulted: one it watches.
      - patch: {object: {kind: Service, name: web}, merge: {spec: {ports: [{name: http, port: 8080}]}}}
      - patch: {object: {kind: Secret, name: db}, merge: {stringData: {password: %[2]s}}}
    record: [endpointslices.discovery.k8s.io]
    settleWindow: 2s
    quietWindow: 10s
    settleWithin: 30s
    goneWithin: 30s
`

// A whole conformance run keeps no secret anywhere: not in the evidence
// and reports below its artifacts folder, not in its bundle. Values
// planted in a Secret among the objects, in a change patching it and in
// the controller's environment are looked for in every file the run
// writes and every file of the bundle, as written, in base64 and as
// their unsalted SHA-256; so is the variable that hands the run's key.
func TestConformKeepsNoPlantedSecret(t *testing.T) {
	localtest.RequireBinaries(t)
	// A whole conform run, mostly waiting: it runs beside the replays
	// (TestExploreReplaysSchedules).
	t.Parallel()
	salt := make([]byte, 8)
	rand.Read(salt)
	suffix := hex.EncodeToString(salt)
	planted := []string{"plantedA-" + suffix, "plantedB-" + suffix, "plantedC-" + suffix}
	dir := t.TempDir()
	subject := filepath.Join(dir, "planted.yaml")
	if err := os.WriteFile(subject, []byte(fmt.Sprintf(plantedSubject, planted[0], planted[1], planted[2])), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: more}\ndata: {password: "+
		base64.StdEncoding.EncodeToString([]byte(planted[0]))+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	artifacts := filepath.Join(dir, "artifacts")
	cmd := exec.Command(binary, "conform", "--subject", subject, "--capabilities", "reconciledObjects")
	cmd.Env = append(os.Environ(), "STEADYSTATE_STATE_DIR="+t.TempDir(), "ARTIFACTS="+artifacts)
	out, err := cmd.CombinedOutput()
	// Passed or not (the verdict is the controller's), the run writes
	// its bundle; a command that did not run is this test's failure.
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	bundlePath := filepath.Join(artifacts, "conformance.tar.gz")
	if _, statErr := os.Stat(bundlePath); statErr != nil {
		t.Fatalf("conform wrote no bundle (%v, %v); output:\n%s", err, statErr, out)
	}
	var forms []form
	for _, v := range planted {
		sum := sha256.Sum256([]byte(v))
		forms = append(forms, form{v, v}, form{v + " in base64", base64.StdEncoding.EncodeToString([]byte(v))},
			form{v + " as its SHA-256", hex.EncodeToString(sum[:])})
	}
	forms = append(forms, form{"the variable handing the run's key", oracle.KeyEnv})

	files := map[string][]byte{"conform's output": out}
	if err := filepath.WalkDir(artifacts, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[path] = data
		if strings.HasSuffix(path, ".tar.gz") {
			return readTarball(path, data, files)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for _, f := range forms {
			if bytes.Contains(files[name], []byte(f.text)) {
				t.Errorf("%s holds %s", name, f.what)
			}
		}
	}
	// The run did record the Secret and make the change: the search
	// above looked where the values would have been.
	found := func(needle string) bool {
		re := regexp.MustCompile(needle)
		for _, data := range files {
			if re.Match(data) {
				return true
			}
		}
		return false
	}
	if !found(regexp.QuoteMeta(oracle.HashPrefix)) {
		t.Errorf("no file holds a hashed Secret value (%s...): the Secret was not recorded; output:\n%s", oracle.HashPrefix, out)
	}
	// JSON may escape the quotes, once or twice, and the angle brackets.
	if !found(`patch Secret/db \{[\\"]*stringData[\\"]*:\{[\\"]*password[\\"]*:[\\"]*(<|\\u003c)redacted`) {
		t.Errorf("no file names the Secret's change: it was not made; output:\n%s", out)
	}
	if !found(`DB_PASSWORD: "<redacted>"`) {
		t.Errorf("the bundle's subject file does not hold its redacted environment; output:\n%s", out)
	}
	// The verdict is the controller's and not what this test judges;
	// it is logged, with the summary's table.
	summary := string(out)
	if i := strings.Index(summary, "# steadystate conformance"); i >= 0 {
		summary = summary[i:]
	}
	t.Logf("%d files searched; conform exited with %v:\n%s", len(files), err, summary)
}

type form struct{ what, text string }

// readTarball adds every file of a .tar.gz to files, by the archive's
// path and the file's.
func readTarball(path string, data []byte, files map[string][]byte) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		files[path+"!"+h.Name] = b
	}
}
