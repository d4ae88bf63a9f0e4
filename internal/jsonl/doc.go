// Package jsonl is an append-only file of JSON values, one a line, that
// can be read back up to a size while it still grows: where the fault
// proxy and the recorded histories keep the older part of what they
// record, so that their memory holds only the newest.
package jsonl
