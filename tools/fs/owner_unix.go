//go:build unix

package fs

import (
	"os"
	"syscall"
)

// keepOwner gives the new file the replaced file's owner and group where
// the process may (root; a member of the group for the group alone).
func keepOwner(f *os.File, prev os.FileInfo) {
	want, ok := prev.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		return
	}
	have, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || (have.Uid == want.Uid && have.Gid == want.Gid) {
		return
	}
	if f.Chown(int(want.Uid), int(want.Gid)) != nil {
		_ = f.Chown(-1, int(want.Gid))
	}
}
