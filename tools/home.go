package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome expands "~" and "~/..." with OPENCLAW_HOME first, as the
// original does for every default, then the OS home directory.
func ExpandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p
	}
	home := os.Getenv("OPENCLAW_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		home = h
	}
	if p == "~" {
		return home
	}
	return filepath.Join(home, p[2:])
}
