package browser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/tools"
	"golang.org/x/sys/unix"
)

// Chromium opens an upload's path itself, later than our check (when the
// input is set, and again when the page reads the file), so a path that
// passed checkUpload could be swapped for a symlink to /etc/shadow in
// between. stageUploads closes that window: it opens each file itself,
// walking down from the uploads root with O_NOFOLLOW at every step, checks
// the open file (regular, one link), and copies what it read into a
// private directory of the profile (0700) under the same base name.
// Chromium is handed the copy, which nobody but us can change; the copies
// go when the browser is stopped.

const stageDirName = "uploads"

// stageUploads returns the staged copies of files (absolute paths that
// checkUpload accepted) in a new directory under dir.
func stageUploads(ctx context.Context, dir string, files []string) ([]string, error) {
	var tag [8]byte
	_, _ = rand.Read(tag[:])
	stage := filepath.Join(dir, stageDirName, hex.EncodeToString(tag[:]))
	if err := os.MkdirAll(stage, 0o700); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	out := make([]string, 0, len(files))
	for i, f := range files {
		src, err := openUnderRoot(f)
		if err != nil {
			os.RemoveAll(stage)
			return nil, err
		}
		// Each file in its own directory: two uploads may share a name.
		dst := filepath.Join(stage, fmt.Sprint(i), filepath.Base(f))
		if err := os.Mkdir(filepath.Dir(dst), 0o700); err != nil {
			src.Close()
			os.RemoveAll(stage)
			return nil, fmt.Errorf("upload: %w", err)
		}
		_, err = atomicfile.WriteFrom(ctx, dst, src, 0o600)
		src.Close()
		if err != nil {
			os.RemoveAll(stage)
			return nil, tools.Errorf(tools.CodeFailed, "upload: copy %s: %v", filepath.Base(f), err)
		}
		out = append(out, dst)
	}
	return out, nil
}

// openUnderRoot opens path, which lies under an uploads root, without
// following a symlink anywhere below the root, and refuses what is not a
// regular file with a single link.
func openUnderRoot(path string) (*os.File, error) {
	root, rel, ok := splitRoot(path)
	if !ok {
		return nil, tools.Errorf(tools.CodeDenied, "upload: %s is outside the uploads root %s", path, uploadRoots()[0])
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, tools.Errorf(tools.CodeNotFound, "upload: %s: %v", root, err)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK // a FIFO must not hang the open
		}
		next, err := unix.Openat(fd, part, flags, 0)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				return nil, tools.Errorf(tools.CodeDenied, "upload: %s goes through a symlink (refused)", path)
			}
			return nil, tools.Errorf(tools.CodeNotFound, "upload: %s: %v", path, err)
		}
		fd = next
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("upload: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, tools.Errorf(tools.CodeDenied, "upload: %s is not a regular file (refused)", path)
	}
	if st.Nlink > 1 {
		unix.Close(fd)
		return nil, tools.Errorf(tools.CodeDenied, "upload: %s has other hard links (refused)", path)
	}
	// Reads block again (the O_NONBLOCK was only for the open).
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("upload: %w", err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// splitRoot finds the uploads root path lies under (as written or with
// the root's own symlinks resolved) and the path relative to it.
func splitRoot(path string) (root, rel string, ok bool) {
	for _, r := range uploadRoots() {
		for _, c := range []string{r, realOr(r)} {
			rel, err := filepath.Rel(c, path)
			if err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				return c, rel, true
			}
		}
	}
	return "", "", false
}
