//go:build unix

package message

import (
	"os"
	"syscall"
)

// privateDir reports a directory this user owns that no one else may write.
func privateDir(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
