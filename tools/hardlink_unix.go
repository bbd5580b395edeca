//go:build unix

package tools

import (
	"os"
	"syscall"
)

// HardLinked reports a regular file with more than one name. Another name
// may be outside the directory a caller is confined to (a link made there to
// a file elsewhere), so a confined read or write refuses such a file, as it
// refuses a symlink.
func HardLinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode().IsRegular() && st.Nlink > 1
}
