package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// readHidden turns terminal echo off *before* showing the prompt (so a key
// pasted the moment the prompt appears is never echoed), reads one line,
// and restores the terminal.
func readHidden(f *os.File, prompt func()) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	t := *old
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	t.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return "", err
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, old)
	prompt()
	return readLineRaw(f)
}
