// Command modproxy writes one module version as a file-system module proxy
// (GOPROXY=file://DIR), so `go install MODULE/cmd/...@VERSION` can be tried
// from outside the checkout, exactly as a user would once the version is
// published, with every other module from the real proxy.
//
//	go run ./modproxy -dir SRC -module PATH -version VERSION -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's source folder (with its go.mod)")
	path := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the version to publish, such as v0.0.0-20261123000000-0123456789ab")
	out := flag.String("out", "", "the proxy folder to write")
	flag.Parse()
	if err := write(*dir, *path, *version, *out); err != nil {
		fmt.Fprintf(os.Stderr, "modproxy: %v\n", err)
		os.Exit(1)
	}
}

func write(dir, path, version, out string) error {
	if dir == "" || path == "" || version == "" || out == "" {
		return fmt.Errorf("-dir, -module, -version and -out are all needed")
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(out, escaped, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(z, mv, dir); err != nil {
		z.Close()
		return fmt.Errorf("zip %s: %w", dir, err)
	}
	if err := z.Close(); err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC()})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{version + ".mod": mod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
