//go:build linux

package config

import (
	"strings"
	"testing"
)

// A regular file whose stat size understates its content (procfs reports
// 0) is still capped: the read stops one byte past the limit and fails.
func TestReadRegularCapsFileLargerThanItsStat(t *testing.T) {
	const limit = 16
	data, _, err := readRegular("/proc/self/maps", limit)
	if err == nil || !strings.Contains(err.Error(), "larger than 16 bytes") {
		t.Fatalf("readRegular(/proc/self/maps, %d) = %d bytes, %v; want the cap", limit, len(data), err)
	}
}
