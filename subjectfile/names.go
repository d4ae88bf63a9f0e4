package subjectfile

import "fmt"

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// mismatch says what a decoded JSON value is: "/bin/x is a string", "the
// value is a list".
func mismatch(v any) string {
	switch v := v.(type) {
	case string:
		return v + " is a string"
	case float64:
		return fmt.Sprintf("%v is a number", v)
	case bool:
		return fmt.Sprintf("%v is a boolean", v)
	case []any:
		return "the value is a list"
	case map[string]any:
		return "the value is a mapping"
	}
	return fmt.Sprintf("%v is a %T", v, v)
}
