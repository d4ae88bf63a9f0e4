// Package atomicfile writes a file whole or not at all: by way of a
// temporary file beside it, renamed over it once written, so that a reader
// never sees half a file and a failed write leaves the old one in place.
package atomicfile
