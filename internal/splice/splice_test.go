package splice

import "testing"

func TestBetween(t *testing.T) {
	got, err := Between([]byte("a\n<!-- b -->\nold\n<!-- e -->\nz\n"), "<!-- b -->\n", "<!-- e -->", "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n<!-- b -->\nnew\n<!-- e -->\nz\n"; string(got) != want {
		t.Errorf("Between = %q, want %q", got, want)
	}
	for _, bad := range []string{"no markers\n", "<!-- e -->\n<!-- b -->\n", "<!-- b -->\nno end\n"} {
		if _, err := Between([]byte(bad), "<!-- b -->\n", "<!-- e -->", "x"); err == nil {
			t.Errorf("Between(%q): no error", bad)
		}
	}
}
