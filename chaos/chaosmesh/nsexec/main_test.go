package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestTranslate(t *testing.T) {
	got, err := translate([]string{"-p", "/proc/7/ns/pid", "-n", "/proc/7/ns/net", "--", "ipset", "create", "s", "hash:net"})
	want := []string{"--pid=/proc/7/ns/pid", "--net=/proc/7/ns/net", "--", "ipset", "create", "s", "hash:net"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("translate = %q, %v; want %q", got, err, want)
	}
}

func TestTranslateRefuses(t *testing.T) {
	for args, why := range map[string]string{
		"-n /proc/7/ns/net":              "no -- before the command",
		"-n /proc/7/ns/net ipset":        `unknown argument "ipset"`,
		"-n /proc/7/ns/net --":           "no command after --",
		"-n -- ipset":                    "-n needs a namespace path",
		"-l -m /proc/7/ns/mnt -- cat /x": "-l (the command from this mount namespace) is not supported",
		"-u /proc/7/ns/uts -- hostname":  `unknown argument "-u"`,
	} {
		if _, err := translate(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("translate(%s) = %v, want an error saying %q", args, err, why)
		}
	}
}
