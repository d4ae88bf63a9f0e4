// Package localtest starts local clusters for tests of other packages.
package localtest
