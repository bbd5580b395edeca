//go:build unix

package media

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockDir takes the media dir's lock file: shared for a Save's rename,
// exclusive for a sweep's removals (flock, so across processes: the CLI
// and the gateway share the dir).
func lockDir(root string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(filepath.Join(root, lockName), os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
