package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpRequest is -h or --help on a command: its usage and flags, which
// run prints to stdout before exiting 0.
type helpRequest struct{ text string }

func (h helpRequest) Error() string        { return "help requested" }
func (h helpRequest) Is(target error) bool { return target == flag.ErrHelp }

// flagCommand is a command's flag set and how it is called, for its help.
type flagCommand struct {
	fs *flag.FlagSet
	// synopsis is the usage line after "steadystate", about what it
	// does.
	synopsis, about string
}

// newCommand is a flag set whose errors and help are main's to print.
func newCommand(name, synopsis, about string) flagCommand {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return flagCommand{fs: fs, synopsis: synopsis, about: about}
}

// help is the command's usage, its flags with their defaults.
func (c flagCommand) help() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "usage: steadystate %s\n\n%s\n", c.synopsis, c.about)
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		b.WriteString("\nflags:\n")
		c.fs.SetOutput(&b)
		c.fs.PrintDefaults()
		c.fs.SetOutput(io.Discard)
	}
	return b.String()
}

// parse parses args; -h or --help is a helpRequest, a bad flag a usage
// error.
func (c flagCommand) parse(args []string) error {
	err := c.fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return helpRequest{c.help()}
	case err != nil:
		return fmt.Errorf("%w: %s: %w", errUsage, c.fs.Name(), err)
	}
	return nil
}

// set says whether the flag name was given on the command line.
func (c flagCommand) set(name string) bool {
	given := false
	c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// source names where a flag's value came from, for messages: the flag,
// or the environment variable that is its default.
func (c flagCommand) source(name, variable string) string {
	if c.set(name) {
		return "--" + name
	}
	return variable
}

// wantsHelp says whether args ask for help (-h, -help, --help) before
// any "--".
func wantsHelp(args []string) bool {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	return slices.ContainsFunc(args[:end], func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// list reads a comma-separated list given as value by source whose every
// item must be one of valid; empty is nil (everything).
func list(source, value, what string, valid []string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	items := strings.Split(value, ",")
	for _, item := range items {
		if !slices.Contains(valid, item) {
			return nil, fmt.Errorf("%s=%q: %q is not %s; valid: %s", source, value, item, what, strings.Join(valid, ", "))
		}
	}
	return items, nil
}
