package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// readNote reads a note (opened as the scan reaches it, see openNote) up
// to maxNoteBytes and returns its text and hash.
func readNote(root, rel string) (string, string, error) {
	f, err := openNote(root, rel)
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

// errPathRequired refuses an empty path (the original's words).
var errPathRequired = errors.New("path required")

// errNotMemoryFile refuses every other path that is not a memory note. It
// says what memory_get reads, never why this path is not one of them: it
// reads the same whether a file outside the memory set exists or not.
var errNotMemoryFile = errors.New("not a memory file: only MEMORY.md (or memory.md) and *.md files " +
	"under memory/ in the agent workspace can be read (regular files, no symlinks or hard links); " +
	"memory search lists them")

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
		return "", "", errNotMemoryFile
	}
	slash := filepath.ToSlash(rel)
	top := slash == "MEMORY.md" || slash == "memory.md"
	if !top && !strings.HasPrefix(slash, "memory/") {
		return "", "", errNotMemoryFile
	}
	if !strings.EqualFold(filepath.Ext(slash), ".md") {
		return "", "", errNotMemoryFile
	}
	// No component below the root may be a symlink (a linked directory
	// would lead out of the workspace just as a linked file would).
	cur := root
	for _, c := range strings.Split(slash, "/") {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return "", "", errNotMemoryFile
		}
		if cur == p && !fi.Mode().IsRegular() {
			return "", "", errNotMemoryFile
		}
	}
	return p, slash, nil
}
