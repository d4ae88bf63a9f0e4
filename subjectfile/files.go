package subjectfile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ManifestFiles is run.manifests resolved, in order: each entry filled in
// with the file's static values, taken relative to the file's folder and
// globbed.
func (f *File) ManifestFiles() ([]string, error) {
	var out []string
	for i, m := range f.Run.Manifests {
		files, err := f.manifest(m)
		if err != nil {
			return nil, &Error{File: f.Path, Subject: f.Name, Field: fmt.Sprintf("run.manifests[%d]", i), Problem: err.Error()}
		}
		out = append(out, files...)
	}
	return out, nil
}

func (f *File) manifest(m string) ([]string, error) {
	path, err := Expand(m, f.Static())
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) && f.Path != "" {
		path = filepath.Join(filepath.Dir(f.Path), path)
	}
	files, err := filepath.Glob(path)
	if err != nil {
		return nil, fmt.Errorf("%q is not a path or glob: %v", m, err)
	}
	if len(files) == 0 {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%q cannot be read: %v", path, errors.Unwrap(err))
		}
		return nil, fmt.Errorf("%q matches no file", path)
	}
	return files, nil
}

// checkProgram checks that a command's program, filled in with the
// file's static values, is an executable file or a program on PATH.
func (f *File) checkProgram(program string) error {
	prog, err := Expand(program, f.Static())
	if err != nil {
		return err
	}
	if !strings.Contains(prog, "/") {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Errorf("%q is not on PATH", prog)
		}
		return nil
	}
	st, err := os.Stat(prog)
	switch {
	case err != nil:
		return fmt.Errorf("%s does not exist", prog)
	case st.IsDir() || st.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not an executable file", prog)
	}
	return nil
}
