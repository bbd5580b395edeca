//go:build !linux

package commands

import (
	"os"

	"golang.org/x/term"
)

// readHidden shows the prompt, then reads one line with echo off.
func readHidden(f *os.File, prompt func()) (string, error) {
	prompt()
	b, err := term.ReadPassword(int(f.Fd()))
	return string(b), err
}
