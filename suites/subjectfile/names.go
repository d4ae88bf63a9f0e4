package subjectfile

import (
	"fmt"
	"reflect"
	"slices"
)

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func sortedKeys(m map[string]reflect.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

func describe(v any) string {
	switch v.(type) {
	case []any:
		return "the value"
	case map[string]any:
		return "the value"
	}
	return fmt.Sprintf("%v", v)
}
