package main

import (
	"fmt"
	"os"
	"syscall"
)

// nsenter is util-linux's, in the image's root filesystem.
const nsenter = "/usr/bin/nsenter"

func main() {
	args, err := translate(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsexec: %v\n", err)
		os.Exit(2)
	}
	err = syscall.Exec(nsenter, append([]string{nsenter}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "nsexec: exec %s: %v\n", nsenter, err)
	os.Exit(1)
}

// longOption maps nsexec's namespace flags to nsenter's.
var longOption = map[string]string{"-m": "--mount", "-i": "--ipc", "-n": "--net", "-p": "--pid"}

// translate turns nsexec's arguments into nsenter's.
func translate(args []string) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 == len(args) {
				return nil, fmt.Errorf("no command after --")
			}
			return append(append(out, "--"), args[i+1:]...), nil
		case a == "-l":
			return nil, fmt.Errorf("-l (the command from this mount namespace) is not supported: nsenter has no such option")
		case longOption[a] != "":
			if i+1 == len(args) || args[i+1] == "--" {
				return nil, fmt.Errorf("%s needs a namespace path, e.g. %s /proc/1/ns/net", a, a)
			}
			out = append(out, longOption[a]+"="+args[i+1])
			i++
		default:
			return nil, fmt.Errorf("unknown argument %q: want -m, -i, -n or -p PATH, then -- and the command", a)
		}
	}
	return nil, fmt.Errorf("no -- before the command")
}
