//go:build !unix

package mcpclient

import "os/exec"

func ownGroup(*exec.Cmd) {}

func killGroup(int) {}
