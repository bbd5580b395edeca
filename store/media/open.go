package media

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotMedia is returned for a name or path outside the media dir, a
// name with separators or dot segments, a symlink or a non-regular file.
var ErrNotMedia = fmt.Errorf("media: not a file in the media dir")

// validName accepts the names Save produces: ASCII letters, digits, '.',
// '-' and '_', not starting with a dot. No separators, no "..", no NUL.
func validName(name string) bool {
	if name == "" || len(name) > 128 || name[0] == '.' {
		return false
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
		default:
			return false
		}
	}
	return !strings.Contains(name, "..")
}

// Name maps a reference path (as Save returned it, possibly on another
// host) to its file name in the media dir, or "" when it cannot be one.
func Name(refPath string) string {
	name := refPath
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if !validName(name) {
		return ""
	}
	return name
}

// Open opens the media file called name for reading. It refuses anything
// that is not a plain name of a regular file directly inside the media dir
// (no traversal, no symlinks), so callers may pass untrusted input.
func (d *Dir) Open(name string) (*os.File, MediaRef, error) {
	if !validName(name) {
		return nil, MediaRef{}, ErrNotMedia
	}
	p := filepath.Join(d.root, name)
	if filepath.Dir(p) != filepath.Clean(d.root) {
		return nil, MediaRef{}, ErrNotMedia
	}
	fi, err := os.Lstat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, MediaRef{}, fmt.Errorf("media: %s: %w", name, os.ErrNotExist)
		}
		return nil, MediaRef{}, fmt.Errorf("media: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, MediaRef{}, ErrNotMedia
	}
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, MediaRef{}, fmt.Errorf("media: %w", err)
	}
	return f, MediaRef{Path: p, MimeType: mimeOf(name), Size: fi.Size()}, nil
}

// Contains reports whether path names a file directly inside the media dir.
func (d *Dir) Contains(path string) bool {
	abs, err := filepath.Abs(path)
	return err == nil && filepath.Dir(abs) == filepath.Clean(d.root) && validName(filepath.Base(abs))
}

// mimeOf is the MIME type for a media file name's extension.
func mimeOf(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	for mt, e := range extensions {
		if e == ext {
			return mt
		}
	}
	return "application/octet-stream"
}
