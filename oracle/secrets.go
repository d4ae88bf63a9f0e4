package oracle

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastApplied is the annotation kubectl keeps a whole applied object in,
// a Secret's values among them.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Redacted is obj as evidence may keep it. A core Secret keeps its keys,
// and each value becomes "sha256:" and the hex SHA-256 of the value
// (data's decoded from base64, stringData's as written), so a history,
// a bundle or a report never holds a secret and two states still compare
// equal exactly when their values are equal; kubectl's last-applied
// annotation, which repeats them, is hashed whole. Every other object is
// returned as it is.
func Redacted(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj == nil || obj.GetKind() != "Secret" || obj.GetAPIVersion() != "v1" {
		return obj
	}
	out := obj.DeepCopy()
	for _, field := range []string{"data", "stringData"} {
		values, ok := out.Object[field].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range values {
			s, _ := v.(string)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(raw)
				}
			}
			values[k] = Hash(s)
		}
	}
	if a := out.GetAnnotations(); a[lastApplied] != "" {
		a[lastApplied] = Hash(a[lastApplied])
		out.SetAnnotations(a)
	}
	return out
}

// Hash is how a redacted value is kept: "sha256:" and its hex digest.
func Hash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return "sha256:" + hex.EncodeToString(sum[:])
}
