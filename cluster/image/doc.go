// Package image builds a container image from one static binary on this
// host, FROM scratch, as an archive in `docker save` format that a
// provider loads into its nodes (kind's LoadImageArchive). No Docker
// engine and no registry take part: a subject file's run.pod.binary runs
// in pods on a machine that has neither.
package image
