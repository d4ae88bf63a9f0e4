package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrUsage marks errors caused by how a command was called.
var ErrUsage = errors.New("usage")

// HelpRequest is -h or --help on a command: its usage and flags, which
// the program prints to stdout before exiting 0.
type HelpRequest struct{ Text string }

func (h HelpRequest) Error() string { return "help requested" }

// Is makes a HelpRequest match flag.ErrHelp.
func (h HelpRequest) Is(target error) bool { return target == flag.ErrHelp }

// Command is a command's flag set and how it is called, for its help.
type Command struct {
	FS *flag.FlagSet
	// synopsis is the usage line after "steadystate", about what it
	// does.
	synopsis, about string
}

// New is a flag set whose errors and help are the program's to print.
func New(name, synopsis, about string) Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return Command{FS: fs, synopsis: synopsis, about: about}
}

// Help is the command's usage, its flags with their defaults.
func (c Command) Help() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "usage: steadystate %s\n\n%s\n", c.synopsis, c.about)
	hasFlags := false
	c.FS.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		b.WriteString("\nflags:\n")
		c.FS.SetOutput(&b)
		c.FS.PrintDefaults()
		c.FS.SetOutput(io.Discard)
	}
	return b.String()
}

// Parse parses args; -h or --help is a HelpRequest, a bad flag a usage
// error.
func (c Command) Parse(args []string) error {
	err := c.FS.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return HelpRequest{Text: c.Help()}
	case err != nil:
		return fmt.Errorf("%w: %s: %w", ErrUsage, c.FS.Name(), err)
	}
	return nil
}

// ParseAll parses args with flags before, between or after the
// arguments, which it returns in order; -h or --help is a HelpRequest, a
// bad flag a usage error.
func (c Command) ParseAll(args []string) ([]string, error) {
	var rest []string
	for {
		if err := c.Parse(args); err != nil {
			return nil, err
		}
		if c.FS.NArg() == 0 {
			return rest, nil
		}
		rest, args = append(rest, c.FS.Arg(0)), c.FS.Args()[1:]
	}
}

// Set says whether the flag name was given on the command line.
func (c Command) Set(name string) bool {
	given := false
	c.FS.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// Source names where a flag's value came from, for messages: the flag,
// or the environment variable that is its default.
func (c Command) Source(name, variable string) string {
	if c.Set(name) {
		return "--" + name
	}
	return variable
}

// WantsHelp says whether args ask for help (-h, -help, --help) before
// any "--".
func WantsHelp(args []string) bool {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	return slices.ContainsFunc(args[:end], func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// List reads a comma-separated list given as value by source whose every
// item, spaces around it aside, must be one of valid; empty is nil
// (everything).
func List(source, value, what string, valid []string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	items := strings.Split(value, ",")
	for i, item := range items {
		item = strings.TrimSpace(item)
		items[i] = item
		if !slices.Contains(valid, item) {
			return nil, fmt.Errorf("%s=%q: %q is not %s; valid: %s", source, value, item, what, strings.Join(valid, ", "))
		}
	}
	return items, nil
}

// Renamed is a comma-separated list with each item under its current
// name: current maps a former name to the one it has now (a suite or a
// capability renamed) and any other to itself.
func Renamed(value string, current func(string) string) string {
	if value == "" {
		return ""
	}
	items := strings.Split(value, ",")
	for i, item := range items {
		items[i] = current(strings.TrimSpace(item))
	}
	return strings.Join(items, ",")
}

// Section is usage's lines of the command name, its flags
// among them; the whole usage when it has none.
func Section(usage, name string) string {
	var out []string
	in := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  steadystate "+name+" ") || line == "  steadystate "+name:
			in = true
		case in && !strings.HasPrefix(line, "    "):
			in = false
		}
		if in {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return usage
	}
	return "usage:\n" + strings.Join(out, "\n") + "\n"
}

// Strings is a flag that may be repeated, each value kept in order.
type Strings []string

func (l *Strings) String() string { return strings.Join(*l, ",") }

// Set adds a value: the flag may be given more than once.
func (l *Strings) Set(v string) error { *l = append(*l, v); return nil }
