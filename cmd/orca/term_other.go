//go:build !linux

package main

import "os"

// isTTY reports whether f is a character device, such as a terminal.
func isTTY(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
