package jsonl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is a JSON-lines file being written. It is not safe for concurrent
// use: its owner serialises Append, Flush and Close (Read may run
// concurrently with them, on what a Flush returned).
type File struct {
	path   string
	f      *os.File
	w      *bufio.Writer
	size   int64 // bytes written through w
	closed bool
}

// Create makes (or empties) the file at path.
func Create(path string) (*File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Append writes v as one line.
func (f *File) Append(v any) error {
	if f.closed {
		return fmt.Errorf("%s is closed", f.path)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	n, err := f.w.Write(append(data, '\n'))
	f.size += int64(n)
	return err
}

// Flush writes out what is buffered and returns the file's size: a Read
// of that many bytes sees every value appended so far.
func (f *File) Flush() (int64, error) {
	if f.closed {
		return f.size, nil
	}
	return f.size, f.w.Flush()
}

// Close flushes the file and closes it; it can still be read.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	return errors.Join(f.w.Flush(), f.f.Close())
}

// Read decodes the values in the first size bytes of the file at path in
// order, calling each with a decoder positioned at the next one, until
// the values end or each returns false or an error.
func Read(path string, size int64, each func(dec *json.Decoder) (bool, error)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(file, size), 1<<16))
	for dec.More() {
		more, err := each(dec)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !more {
			return nil
		}
	}
	return nil
}
