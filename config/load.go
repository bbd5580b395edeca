package config

import (
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
// are reported in Issues (errors) and Warnings (unknown keys).
func Load(path string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config path %s: %w", path, err)
	}
	cfg := &Config{Path: path, Doc: map[string]any{}, Hash: HashRaw(nil)}
	raw, err := readRegular(abs, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg.Exists = true
	cfg.Raw = raw
	cfg.Hash = HashRaw(raw)

	v, err := ParseJSON5(raw)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("parse config %s:%d:%d: %s", path, se.Line, se.Column, se.Msg)
		}
		return nil, fmt.Errorf("parse config %s: %w", path, err)
	}
	in := newIncluder(abs, getenv)
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
	issues, warnings := Validate(cfg.Doc)
	cfg.Issues = issues
	for _, w := range warnings {
		cfg.Warnings = append(cfg.Warnings, displayPath(w.Path)+": "+w.Message)
	}
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
