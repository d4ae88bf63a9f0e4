// Package pki is a minimal certificate authority for test clusters and the
// fault proxy: ECDSA P-256 keys (fast to generate), PEM output.
package pki
