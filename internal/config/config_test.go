package config

import (
	"path/filepath"
	"testing"
)

func lookup(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// Unset variables take their documented defaults; set ones are read as
// they are.
func TestDefaultsAndValues(t *testing.T) {
	s := From(lookup(nil))
	if s.KubeVersion != DefaultKubeVersion || s.Artifacts != DefaultArtifacts || s.ArtifactsSet || s.ReferenceRepeat != DefaultReferenceRepeat || s.StateDir == "" {
		t.Errorf("defaults: %+v", s)
	}
	s = From(lookup(map[string]string{"KUBE_VERSION": "v1.35.0", "ARTIFACTS": "out", "REFERENCE_REPEAT": "20", "KCM_CONTROLLERS": "a,b",
		"KIND_KEEP": "1", "SELFTEST_REPEAT": "3", "SELFTEST_SUBJECTS": "stack", "UPSTREAM_CELLS": "c", "STEADYSTATE_CACHE_DIR": "/cache"}))
	if s.KubeVersion != "v1.35.0" || s.Artifacts != "out" || !s.ArtifactsSet || s.ReferenceRepeat != 20 || len(s.KCMControllers) != 2 ||
		!s.KindKeep || s.Matrix["SELFTEST"].Repeat != "3" || s.Matrix["SELFTEST"].Subjects != "stack" || s.Matrix["UPSTREAM"].Cells != "c" {
		t.Errorf("values: %+v", s)
	}
	if up, err := s.UpstreamRoot(); err != nil || up != filepath.Join("/cache", "upstream") {
		t.Errorf("UpstreamRoot = %q, %v; want the cache's upstream folder", up, err)
	}
	if s := From(lookup(map[string]string{"REFERENCE_REPEAT": "0"})); s.ReferenceRepeat != DefaultReferenceRepeat {
		t.Errorf("REFERENCE_REPEAT=0 read as %d, want the default", s.ReferenceRepeat)
	}
}
