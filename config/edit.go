package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/atomicfile"
)

// ErrStaleHash means the file changed since the caller read the hash it
// passed as base (compare-and-set failed). The text is the one the
// original's clients match on.
var ErrStaleHash = errors.New("config changed since last load; re-run config.get and retry")

// InvalidError is an edit whose result would not load: a parse, $include
// or ${VAR} error (Err), or schema issues (Issues). Nothing was written.
type InvalidError struct {
	Path   string
	Issues []Issue
	Err    error
}

func (e *InvalidError) Error() string {
	if e.Err != nil {
		return "invalid config: " + e.Err.Error()
	}
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = displayPath(is.Path) + ": " + is.Message
	}
	return "invalid config: " + strings.Join(parts, "; ")
}

func (e *InvalidError) Unwrap() error { return e.Err }

// Draft is the config an Edit is changing, read under the write lock.
type Draft struct {
	Path   string
	Exists bool
	Raw    []byte
	Hash   string
	// Doc is the file as authored ($include and ${VAR} left as written):
	// the edit function changes it in place or replaces it.
	Doc map[string]any
	// ParseErr is set when the file is not a JSON5 object (Doc is empty).
	ParseErr error
	// Current is the file as it loads (includes and variables resolved,
	// validated); nil when LoadErr is set.
	Current *Config
	LoadErr error
}

// EditOptions tune Edit.
type EditOptions struct {
	// BaseHash, when set, must equal the file's hash (compare-and-set). A
	// missing file accepts any base hash, as the original does.
	BaseHash *string
	// Getenv resolves ${VAR} while validating; nil means os.Getenv.
	Getenv func(string) string
	// DryRun validates and reports without writing.
	DryRun bool
	// Always writes even when no path changed (a whole-document replace
	// normalises the file).
	Always bool
	// Check, when set, vets the validated next config before anything is
	// written (the gateway refuses a config it could not run).
	Check func(*Config) error
}

// EditResult is what an Edit did.
type EditResult struct {
	Path    string
	Hash    string   // the file's hash afterwards (unchanged on noop or dry run)
	Changed []string // dot paths that differ, sorted
	// Warnings are what validate prints for the new document (unknown
	// keys): "path: message".
	Warnings []string
	// Config is the new document as it will load (nil on noop); after a
	// real write its Path, Raw, Hash, ModTime and Size are the file's.
	Config *Config
	Before map[string]any // the authored document before the edit
	Noop   bool
	DryRun bool
}

// Edit is the one write path for openclaw.json (CLI and gateway): under
// an exclusive lock on <path>.lock it reads the file, checks BaseHash,
// lets fn change the authored document, validates the result exactly as
// the next load will (from a temp file beside the config, so $include and
// ${VAR} resolve), copies the previous file to <path>.bak and renames the
// validated temp file (mode 0600, fsynced) over the config. Readers see
// the old or the new file, never a mix; two writers never lose an update.
// Temp files left by interrupted writes are removed first.
func Edit(ctx context.Context, path string, opts EditOptions, fn func(*Draft) error) (*EditResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("config write: %s is a directory", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("config write: %w", err)
	}
	lock, err := lockConfig(ctx, path)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	_, _ = cleanTempLocked(path)

	d, err := readDraft(ctx, path, opts.Getenv)
	if err != nil {
		return nil, err
	}
	if opts.BaseHash != nil && d.Exists && *opts.BaseHash != d.Hash {
		return nil, ErrStaleHash
	}
	before := cloneDoc(d.Doc)
	if err := fn(d); err != nil {
		return nil, err
	}
	if d.Doc == nil {
		d.Doc = map[string]any{}
	}
	res := &EditResult{Path: path, Hash: d.Hash, Changed: ChangedPaths(before, d.Doc), Before: before, DryRun: opts.DryRun}
	if res.Changed == nil {
		res.Changed = []string{}
	}
	if len(res.Changed) == 0 && !opts.Always {
		res.Noop = true
		return res, nil
	}
	data, err := Marshal(d.Doc)
	if err != nil {
		return nil, &InvalidError{Path: path, Err: err}
	}
	// The new file is validated where it will be renamed from: a temp file
	// beside the config, so $include and ${VAR} resolve as at the next load.
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("config write: %w", err)
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return nil, fmt.Errorf("config write: %w", err)
	}
	tmp := f.TempName()
	cfg, err := LoadContext(ctx, tmp, opts.Getenv)
	if err != nil {
		return nil, &InvalidError{Path: path, Err: errors.New(strings.ReplaceAll(err.Error(), tmp, path))}
	}
	if !cfg.Valid() {
		return nil, &InvalidError{Path: path, Issues: cfg.Issues()}
	}
	cfg.Path = path
	if opts.Check != nil {
		if err := opts.Check(cfg); err != nil {
			return nil, err
		}
	}
	res.Warnings = cfg.Warnings()
	res.Config = cfg
	if opts.DryRun {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("config write: %w", err)
	}
	if d.Exists {
		if err := atomicfile.WriteFile(path+".bak", d.Raw, 0o600); err != nil {
			return nil, fmt.Errorf("write config backup: %w", err)
		}
	}
	if err := f.Commit(); err != nil {
		return nil, fmt.Errorf("config write: %w", err)
	}
	cfg.Exists, cfg.Raw, cfg.Hash = true, data, HashRaw(data)
	res.Hash = cfg.Hash
	return res, nil
}

// readDraft reads the config at path for an edit.
func readDraft(ctx context.Context, path string, getenv func(string) string) (*Draft, error) {
	d := &Draft{Path: path, Doc: map[string]any{}, Hash: HashRaw(nil)}
	raw, _, err := readRegular(path, maxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Current = &Config{Path: path, Doc: map[string]any{}, Hash: d.Hash, lazy: &derived{}}
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("read config: %w", err)
	}
	d.Exists, d.Raw, d.Hash = true, raw, HashRaw(raw)
	if len(strings.TrimSpace(string(raw))) > 0 {
		v, perr := ParseJSON5(raw)
		m, ok := v.(map[string]any)
		switch {
		case perr != nil:
			var se *SyntaxError
			if errors.As(perr, &se) {
				perr = fmt.Errorf("parse config %s:%d:%d: %s", path, se.Line, se.Column, se.Msg)
			}
			d.ParseErr = perr
		case !ok:
			d.ParseErr = fmt.Errorf("config %s: the top level must be an object, got %s", path, jsonType(v))
		default:
			d.Doc = m
		}
	}
	if d.ParseErr != nil {
		d.LoadErr = d.ParseErr
		return d, nil
	}
	d.Current, d.LoadErr = LoadContext(ctx, path, getenv)
	return d, nil
}

// cloneDoc deep-copies a decoded JSON document.
func cloneDoc(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneDoc(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	case json.RawMessage:
		return append(json.RawMessage(nil), t...)
	}
	return v
}
