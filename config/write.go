package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openclaw-go/openclaw/atomicfile"
)

// Marshal renders doc the way OpenClaw writes its config: plain JSON,
// 2-space indent, no HTML escaping, trailing newline. Keys come out sorted.
func Marshal(doc map[string]any) ([]byte, error) {
	if p, bad := findNonFinite(doc, ""); bad {
		return nil, fmt.Errorf("config %s: Infinity and NaN are not allowed", displayPath(p))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if doc == nil {
		doc = map[string]any{}
	}
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), nil
}

// Write replaces the config file at path with doc (see Marshal). The
// previous content, if any, is copied to path+".bak" first. The new file
// is written to a temporary file in the same directory (mode 0600),
// synced, and renamed over path, so readers see the old or the new file,
// never a mix. A symlink at path is replaced by the new file, not written
// through. The parent directory is created (0700) when missing. It
// returns HashRaw of the bytes written. It takes the write lock but does
// not validate or compare hashes: edits go through Edit.
func Write(path string, doc map[string]any) (string, error) {
	data, err := Marshal(doc)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		return "", fmt.Errorf("write config: %s is a directory", path)
	}
	lock, err := lockConfig(context.Background(), path)
	if err != nil {
		return "", err
	}
	defer lock.unlock()
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := atomicfile.WriteFile(path+".bak", old, 0o600); err != nil {
			return "", fmt.Errorf("write config backup: %w", err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// nothing to back up (a dangling symlink is simply replaced)
	default:
		return "", fmt.Errorf("write config: read previous: %w", err)
	}
	// a rename over path replaces a symlink rather than its target
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("write config: %w", err)
	}
	return HashRaw(data), nil
}
