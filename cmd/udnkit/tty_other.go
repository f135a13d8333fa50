//go:build !linux

package main

import "os"

// isTerminal says whether f is a character device: a terminal, or on
// systems without the Linux ioctl, possibly a null device.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
