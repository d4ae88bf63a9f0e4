// Package config is the one place the project reads its environment
// variables (docs/settings.md lists them): From fills a Settings from a
// lookup, each default written once here, and FromEnv reads the process's
// environment. A command reads it once (Process) and passes the value
// down; its flags take their defaults from it. A suite's child process
// reads it the same way (suites/testenv), with the cell's flags given in
// place of their variables.
package config
