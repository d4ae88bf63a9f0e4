// Package tools pins build tools that need other library versions than the
// main module (controller-gen), and the API packages they read.
package tools

import (
	// The Chaos Mesh types whose CRDs controller-gen generates for tests.
	_ "github.com/chaos-mesh/chaos-mesh/api/v1alpha1"
)
