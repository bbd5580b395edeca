package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// maxConfigBytes bounds the main config file.
const maxConfigBytes = 16 << 20

// ReadFile reads a config file as Load does: a regular file of at most
// 16 MiB, checked on the opened descriptor (a FIFO never blocks).
func ReadFile(path string) ([]byte, error) {
	data, _, err := readRegular(path, maxConfigBytes)
	return data, err
}

// HashRaw is the compare-and-set hash of a config file's bytes: sha256,
// hex. A missing or empty file hashes as sha256("").
func HashRaw(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Load reads the config at path: JSON5, then $include, then the
// non-finite-number check, then ${VAR} substitution (getenv first, then
// the file's env.vars). A missing file is not an error: it yields an empty
// document with Exists false. Schema problems do not fail the load; they
// are reported by Issues (errors) and Warnings (unknown keys), which
// validate on first use.
func Load(path string, getenv func(string) string) (*Config, error) {
	return LoadContext(context.Background(), path, getenv)
}

// LoadContext is Load that stops between $include files once ctx is done
// (the gateway's watcher loads under its shutdown context).
func LoadContext(ctx context.Context, path string, getenv func(string) string) (*Config, error) {
	cfg, err := load(ctx, path, getenv)
	if err != nil && ctx.Err() == nil {
		_, bakErr := os.Stat(path + ".bak")
		return nil, &LoadError{Path: path, Err: err, HasBackup: bakErr == nil}
	}
	return cfg, err
}

// LoadError is a config file that exists but does not load (syntax,
// $include, ${VAR}). Its message says how to investigate, because it
// reaches users through commands that have nothing to do with config.
type LoadError struct {
	Path      string
	Err       error
	HasBackup bool // <path>.bak exists
}

func (e *LoadError) Error() string {
	msg := e.Err.Error() + " (check it with `openclaw config validate`"
	if e.HasBackup {
		msg += "; the previous version is in " + e.Path + ".bak"
	}
	return msg + ")"
}

func (e *LoadError) Unwrap() error { return e.Err }

func load(ctx context.Context, path string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config path %s: %w", path, err)
	}
	cfg := &Config{Path: path, Doc: map[string]any{}, Hash: HashRaw(nil), lazy: &derived{}}
	raw, st, err := readRegular(abs, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg.Exists = true
	cfg.Raw = raw
	cfg.ModTime, cfg.Size = st.ModTime(), st.Size()
	cfg.Hash = HashRaw(raw)

	v, err := ParseJSON5(raw)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("parse config %s:%d:%d: %s", path, se.Line, se.Column, se.Msg)
		}
		return nil, fmt.Errorf("parse config %s: %w", path, err)
	}
	in := newIncluder(ctx, abs, getenv)
	v, err = in.resolve(v, []string{abs})
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.IncludedPaths = in.files
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config %s: the top level must be an object, got %s", path, jsonType(v))
	}
	if p, bad := findNonFinite(doc, ""); bad {
		return nil, fmt.Errorf("config %s: %s: Infinity and NaN are not allowed", path, displayPath(p))
	}
	sub, err := SubstituteEnv(doc, configEnvLookup(doc, getenv))
	if err != nil {
		return nil, err
	}
	cfg.Doc = sub.(map[string]any)
	return cfg, nil
}

// findNonFinite returns the path of the first ±Inf or NaN number in v.
func findNonFinite(v any, path string) (string, bool) {
	switch t := v.(type) {
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return path, true
		}
	case []any:
		for i, e := range t {
			if p, ok := findNonFinite(e, joinIndex(path, i)); ok {
				return p, true
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if p, ok := findNonFinite(t[k], joinKey(path, k)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// displayPath shows the root path as "<root>".
func displayPath(p string) string {
	if p == "" {
		return "<root>"
	}
	return p
}
