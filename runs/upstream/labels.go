package upstream

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// labelYAML adds labels to every object in the YAML files of dir,
// rewriting them; nothing when labels is empty.
func labelYAML(dir string, labels map[string]string) error {
	if len(labels) == 0 {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			if obj == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			l := u.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			for k, v := range labels {
				l[k] = v
			}
			u.SetLabels(l)
			doc, err := yaml.Marshal(u.Object)
			if err != nil {
				return err
			}
			out.WriteString("---\n")
			out.Write(doc)
		}
		if err := os.WriteFile(f, out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
