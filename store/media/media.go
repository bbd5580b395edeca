// Package media keeps the files tool results carry (screenshots, PDFs,
// camera clips, images read by `read`) under <state>/media/ and hands out
// references ({path, mimeType, size}) instead of base64 inlined into the
// JSON envelope, which is capped and re-encoded at every hop.
//
// Files are content-addressed (sha256 of the bytes), so saving the same
// bytes twice yields one file; they are written through atomicfile (a temp
// file in the same dir, fsynced, renamed, the dir fsynced), mode 0600 in a
// 0700 dir.
package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/mediaref"
)

// MediaRef is a reference to a saved file (MediaRef is this type).
type MediaRef = mediaref.Ref

// DirName is the media dir inside the state dir.
const DirName = "media"

// DefaultMaxBytes caps one saved file.
const DefaultMaxBytes int64 = 256 << 20

// ErrTooLarge is returned when the bytes exceed the cap.
var ErrTooLarge = errors.New("media: file exceeds the size cap")

// Dir is a media directory; it implements tools.Media (the gateway checks).
type Dir struct {
	root     string
	maxBytes int64

	sweepOnSave bool           // see SweepOnSave
	sweepCfg    *config.Config // its retention settings
}

// New returns the media dir of a state dir. Nothing is created until the
// first Save.
func New(stateDir string) *Dir {
	root := filepath.Join(stateDir, DirName)
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return &Dir{root: root, maxBytes: DefaultMaxBytes}
}

// Root is the absolute media directory.
func (d *Dir) Root() string { return d.root }

// Save stores r's bytes and returns a reference to the file. nameHint only
// contributes an extension when the MIME type has none we know.
func (d *Dir) Save(ctx context.Context, r io.Reader, mimeType, nameHint string) (MediaRef, error) {
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return MediaRef{}, fmt.Errorf("media: %w", err)
	}
	// The name is known only once the bytes are hashed: write under a
	// placeholder and CommitTo the content address.
	tmp, err := atomicfile.Create(filepath.Join(d.root, tempBase), 0o600)
	if err != nil {
		return MediaRef{}, fmt.Errorf("media: %w", err)
	}
	defer tmp.Abort() // no-op after the commit
	h := sha256.New()
	n, err := copyCtx(ctx, io.MultiWriter(tmp, h), r, d.maxBytes)
	if err == nil {
		err = tmp.Sync() // before the lock: a sweep waits only for the rename
	}
	if err != nil {
		return MediaRef{}, fmt.Errorf("media: save: %w", err)
	}
	name := hex.EncodeToString(h.Sum(nil))[:32] + extension(mimeType, nameHint)
	final := filepath.Join(d.root, name)
	// A sweep removes only under the exclusive lock: it cannot delete the
	// file this rename (re)creates, which a same-bytes save renews.
	unlock, err := lockDir(d.root, false)
	if err != nil {
		return MediaRef{}, fmt.Errorf("media: save: %w", err)
	}
	err = tmp.CommitTo(final)
	unlock()
	if err != nil {
		return MediaRef{}, fmt.Errorf("media: save: %w", err)
	}
	if d.sweepOnSave {
		d.maybeSweep(ctx, time.Now())
	}
	return MediaRef{Path: final, MimeType: mimeType, Size: n}, nil
}

// copyCtx copies at most max bytes, checking ctx between chunks.
func copyCtx(ctx context.Context, w io.Writer, r io.Reader, max int64) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := r.Read(buf)
		if k > 0 {
			if n += int64(k); n > max {
				return n, fmt.Errorf("%w (%d bytes)", ErrTooLarge, max)
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return n, err
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// extensions are the suffixes of the media types tools produce.
var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "application/pdf": ".pdf", "video/mp4": ".mp4",
	"video/webm": ".webm", "audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/wav": ".wav",
	"application/zip": ".zip", "text/plain": ".txt", "application/json": ".json",
}

// extension picks the file suffix: from the MIME type, else a safe one
// from the name hint, else ".bin".
func extension(mimeType, nameHint string) string {
	mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mimeType)), ";")
	if ext, ok := extensions[strings.TrimSpace(mt)]; ok {
		return ext
	}
	ext := strings.ToLower(filepath.Ext(filepath.Base(nameHint)))
	if len(ext) > 1 && len(ext) <= 8 && validName(ext[1:]) {
		return ext
	}
	return ".bin"
}
