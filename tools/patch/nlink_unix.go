//go:build unix

package patch

import (
	"os"
	"syscall"
)

// hardLinked reports a regular file with more than one name: one of them
// may be outside the workspace.
func hardLinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode().IsRegular() && st.Nlink > 1
}
