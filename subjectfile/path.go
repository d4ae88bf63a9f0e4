package subjectfile

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Int reads the integer at a dotted field path of a live object. A path
// that does not resolve is an *Error naming the binding field, so a
// misbound subject fails with a message about its file, not as a
// controller that never converged.
func (f *File) Int(obj *unstructured.Unstructured, field, path string) (int64, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(path, ".")...)
	what := fmt.Sprintf("%s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
	if err != nil || !found {
		return 0, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: fmt.Sprintf("%s does not resolve on the live %s", path, what), Expected: "the path of an integer field the object has"}
	}
	switch n := v.(type) {
	case int64:
		return n, nil
	case float64:
		return int64(n), nil
	}
	return 0, &Error{File: f.Path, Subject: f.Name, Field: field, Problem: fmt.Sprintf("%s on the live %s is %T %v, not an integer", path, what, v, v), Expected: "the path of an integer field"}
}
