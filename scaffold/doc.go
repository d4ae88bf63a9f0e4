// Package scaffold drafts a subject file for a controller nobody wrote one
// for: from a kubebuilder project's layout (its CRDs, its samples, its
// manager's main package) or from CRD and sample files and a program. The
// draft binds the steady-state capability, which every controller has,
// and explains every field in comments; `steadystate init` writes it and
// `steadystate conform` runs it as it is.
package scaffold
