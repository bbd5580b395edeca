//go:build !linux

package gateway

import (
	"fmt"
	"time"
)

// FreePort is `serve --force`; finding a port's owner is only implemented
// for Linux.
func FreePort(port int, grace time.Duration) ([]int, error) {
	return nil, fmt.Errorf("--force is supported on Linux only: stop the process on port %d yourself", port)
}
