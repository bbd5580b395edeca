package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is returned by ReadCapped for a symlink, FIFO, socket,
// device or directory; ErrTooLarge for a file over the cap.
var (
	ErrNotRegular = errors.New("not a regular file (symlinks are refused)")
	ErrTooLarge   = errors.New("file over the size cap")
)

// ReadCapped reads back a state file these writers produce: opened without
// following a symlink (O_NOFOLLOW, so there is no window between a check and
// the open) and without blocking on a FIFO, refused unless it is a regular
// file, and read to at most max bytes (more is ErrTooLarge, never a silent
// cut). A missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadCapped(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes: %w", path, max, ErrTooLarge)
	}
	return b, nil
}
