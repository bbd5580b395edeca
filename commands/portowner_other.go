//go:build !linux

package commands

import "errors"

type portOwner struct {
	PID     int
	UID     int
	Cmdline string
}

func (o portOwner) String() string { return "another process" }

// portOwners needs /proc: on other systems doctor says it cannot tell.
func portOwners(port int) ([]portOwner, error) {
	return nil, errors.New("not supported on this system (use lsof -i)")
}
