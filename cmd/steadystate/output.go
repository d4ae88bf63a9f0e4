package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// replaceFile writes out whole through write, by way of a temporary file
// beside it, so that a reader never sees half a file and a failed write
// leaves the old one in place.
func replaceFile(out string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp makes it private
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
