package fs

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A process killed between creating its temp file and the rename (kill -9,
// power loss) leaves a hidden .<name>.<12 hex>.tmp beside the target; the
// target itself is intact. The next write in that directory removes such
// leftovers, so they do not pile up. Only files that match createTemp's
// naming exactly, are regular files (never a symlink or directory), and
// are older than staleTempAge go: a younger one may be another process's
// write still under way.
const (
	// staleTempAge is far beyond the time any single write takes.
	staleTempAge = time.Hour
	// staleTempScan bounds the directory entries looked at per write, so a
	// write into a huge directory stays cheap.
	staleTempScan = 4096
	tempHexLen    = 12 // 6 random bytes, hex
)

// isTempName reports whether name is exactly what createTemp makes:
// "." + base + "." + 12 lowercase hex digits + ".tmp", base not empty.
func isTempName(name string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	rest := strings.TrimSuffix(name[1:], ".tmp")
	if len(rest) < tempHexLen+2 || rest[len(rest)-tempHexLen-1] != '.' {
		return false
	}
	for _, c := range rest[len(rest)-tempHexLen:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// removeStaleTemps removes leftover temp files in dir older than
// staleTempAge (see above). It is best effort: errors are ignored, the
// write that calls it goes on regardless.
func removeStaleTemps(dir string, now time.Time) {
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	for seen := 0; seen < staleTempScan; {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if !isTempName(name) {
				continue
			}
			p := filepath.Join(dir, name)
			fi, lerr := os.Lstat(p)
			if lerr != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < staleTempAge {
				continue
			}
			// unlink(2) never follows a symlink nor removes a directory: if
			// the name was swapped since the Lstat, at worst a link goes.
			_ = syscall.Unlink(p)
		}
		seen += len(names)
		if err == io.EOF || err != nil || len(names) == 0 {
			return
		}
	}
}
