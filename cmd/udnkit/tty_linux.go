package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal says whether f is a terminal (a pipe, a file or /dev/null is
// not).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
