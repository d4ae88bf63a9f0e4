package jsonl

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// A Read sees exactly what was appended before the Flush that gave its
// size, while the file goes on growing; a closed file reads whole.
func TestReadUpToAFlush(t *testing.T) {
	f, err := Create(filepath.Join(t.TempDir(), "f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(size int64) (got []int) {
		t.Helper()
		err := Read(f.Path(), size, func(dec *json.Decoder) (bool, error) {
			var n int
			err := dec.Decode(&n)
			got = append(got, n)
			return err == nil, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for i := range 3 {
		if err := f.Append(i); err != nil {
			t.Fatal(err)
		}
	}
	size, err := f.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append(3); err != nil {
		t.Fatal(err)
	}
	if got := read(size); len(got) != 3 || got[2] != 2 {
		t.Fatalf("read %v up to the flush, want [0 1 2]", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	size, _ = f.Flush()
	if got := read(size); len(got) != 4 {
		t.Fatalf("read %v after close, want 4 values", got)
	}
	if f.Append(4) == nil {
		t.Fatal("appended to a closed file")
	}
}
