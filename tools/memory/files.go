package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// listFiles is the stat walk: MEMORY.md (or memory.md) at the workspace root
// and every *.md under memory/, keyed by slash path relative to the root.
// Symlinks are skipped (files and directories alike) so nothing outside the
// workspace is indexed; only regular files count.
func listFiles(root string) (map[string]os.FileInfo, error) {
	out := map[string]os.FileInfo{}
	var seen []os.FileInfo // MEMORY.md and memory.md are one file on case-insensitive disks
	for _, name := range []string{"MEMORY.md", "memory.md"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		dup := false
		for _, s := range seen {
			dup = dup || os.SameFile(s, fi)
		}
		if !dup {
			seen = append(seen, fi)
			out[name] = fi
		}
	}
	dir := filepath.Join(root, "memory")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return out, nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable subdirectory is skipped, not fatal
		}
		if d.Type()&fs.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
			return nil // WalkDir does not follow directory links either
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		out[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readNote reads a note up to maxNoteBytes and returns its text and hash.
func readNote(p string) (string, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxNoteBytes))
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(b)
	return strings.TrimPrefix(string(b), "\uFEFF"), hex.EncodeToString(sum[:]), nil
}

// isCJK reports the scripts written without spaces between words, which the
// word tokenizer cannot split; they go through the trigram index.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}

// expandAgent substitutes {agentId} in a configured store path.
func expandAgent(p, agent string) string {
	return strings.ReplaceAll(p, "{agentId}", agent)
}

// errPathRequired is the original's deliberately opaque refusal: it says
// nothing about whether a file outside the memory set exists.
var errPathRequired = errors.New("path required")

// resolveNote confines a memory_get path: relative to the workspace or
// absolute, it must name MEMORY.md/memory.md at the root or a *.md under
// memory/, and be a regular file reached without any symlink below the
// workspace root. It returns the absolute path and the workspace-relative
// slash path.
func resolveNote(root, raw string) (string, string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", errPathRequired
	}
	p := raw
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", errPathRequired
	}
	slash := filepath.ToSlash(rel)
	top := slash == "MEMORY.md" || slash == "memory.md"
	if !top && !strings.HasPrefix(slash, "memory/") {
		return "", "", errPathRequired
	}
	if !strings.EqualFold(filepath.Ext(slash), ".md") {
		return "", "", errPathRequired
	}
	// No component below the root may be a symlink (a linked directory
	// would lead out of the workspace just as a linked file would).
	cur := root
	for _, c := range strings.Split(slash, "/") {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return "", "", errPathRequired
		}
		if cur == p && !fi.Mode().IsRegular() {
			return "", "", errPathRequired
		}
	}
	return p, slash, nil
}
