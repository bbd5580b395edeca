package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// IncludeKey is the directive that pulls other files into the config.
const IncludeKey = "$include"

const (
	// MaxIncludeDepth bounds nested $include chains.
	MaxIncludeDepth = 10
	// maxIncludeBytes bounds one included file.
	maxIncludeBytes = 2 << 20
	maxIncludePath  = 4096
)

// includer resolves $include directives (§6.3). Every file must live under
// one of roots (the main config's directory plus OPENCLAW_INCLUDE_ROOTS),
// checked both lexically and after resolving symlinks.
type includer struct {
	roots     []string // cleaned absolute roots
	realRoots []string // the same with symlinks resolved
	files     []string // every file included, in order
}

func newIncluder(configPath string, getenv func(string) string) *includer {
	in := &includer{}
	add := func(dir string) {
		if dir == "" {
			return
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return
		}
		in.roots = append(in.roots, abs)
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			real = abs
		}
		in.realRoots = append(in.realRoots, real)
	}
	add(filepath.Dir(configPath))
	for _, r := range filepath.SplitList(getenv("OPENCLAW_INCLUDE_ROOTS")) {
		add(strings.TrimSpace(r))
	}
	return in
}

// resolve processes v, which was read from file (chain is the include
// stack ending with file).
func (in *includer) resolve(v any, chain []string) (any, error) {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			r, err := in.resolve(e, chain)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		spec, has := t[IncludeKey]
		rest := make(map[string]any, len(t))
		for k, e := range t {
			if k == IncludeKey {
				continue
			}
			r, err := in.resolve(e, chain)
			if err != nil {
				return nil, err
			}
			rest[k] = r
		}
		if !has {
			return rest, nil
		}
		included, err := in.includeSpec(spec, chain)
		if err != nil {
			return nil, err
		}
		if len(rest) == 0 {
			return included, nil
		}
		if _, ok := included.(map[string]any); !ok {
			return nil, fmt.Errorf("$include in %s: sibling keys require the included content to be an object", chain[len(chain)-1])
		}
		return deepMerge(included, rest), nil
	}
	return v, nil
}

// includeSpec loads a "$include" value: one path, or paths merged in order.
func (in *includer) includeSpec(spec any, chain []string) (any, error) {
	from := chain[len(chain)-1]
	switch s := spec.(type) {
	case string:
		return in.load(s, chain)
	case []any:
		var merged any = map[string]any{}
		for _, item := range s {
			p, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("$include in %s: array items must be strings, got %s", from, jsonType(item))
			}
			v, err := in.load(p, chain)
			if err != nil {
				return nil, err
			}
			merged = deepMerge(merged, v)
		}
		return merged, nil
	}
	return nil, fmt.Errorf("$include in %s: expected a path or an array of paths, got %s", from, jsonType(spec))
}

func (in *includer) load(p string, chain []string) (any, error) {
	from := chain[len(chain)-1]
	if p == "" || len(p) >= maxIncludePath || strings.ContainsRune(p, 0) {
		return nil, fmt.Errorf("$include in %s: invalid path %q", from, p)
	}
	target := p
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(from), target)
	}
	target = filepath.Clean(target)
	if !within(target, in.roots) {
		return nil, fmt.Errorf("$include in %s: path escapes the config directory: %s (roots: %s; add more with OPENCLAW_INCLUDE_ROOTS)",
			from, p, strings.Join(in.roots, string(os.PathListSeparator)))
	}
	if real, err := filepath.EvalSymlinks(target); err == nil && !within(real, in.realRoots) {
		return nil, fmt.Errorf("$include in %s: path resolves outside the config directory (symlink): %s", from, p)
	}
	for _, c := range chain {
		if c == target {
			return nil, fmt.Errorf("circular $include: %s", strings.Join(append(append([]string{}, chain...), target), " -> "))
		}
	}
	if len(chain) > MaxIncludeDepth {
		return nil, fmt.Errorf("$include in %s: maximum include depth (%d) exceeded at %s", from, MaxIncludeDepth, p)
	}
	data, err := readRegular(target, maxIncludeBytes)
	if err != nil {
		return nil, fmt.Errorf("$include in %s: %w", from, err)
	}
	in.files = append(in.files, target)
	v, err := ParseJSON5(data)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("parse include %s:%d:%d: %s", target, se.Line, se.Column, se.Msg)
		}
		return nil, fmt.Errorf("parse include %s: %w", target, err)
	}
	return in.resolve(v, append(append([]string{}, chain...), target))
}

// within reports whether p is one of roots or below one.
func within(p string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err != nil {
			continue
		}
		if rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)) {
			return true
		}
	}
	return false
}

// readRegular reads a regular file of at most limit bytes.
func readRegular(p string, limit int64) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if limit > 0 && st.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return os.ReadFile(p)
}

// deepMerge merges src over dst the way OpenClaw merges includes: objects
// merge recursively, arrays concatenate, anything else is replaced by src.
// Neither input is modified.
func deepMerge(dst, src any) any {
	if da, ok := dst.([]any); ok {
		if sa, ok := src.([]any); ok {
			out := make([]any, 0, len(da)+len(sa))
			return append(append(out, da...), sa...)
		}
	}
	dm, ok1 := dst.(map[string]any)
	sm, ok2 := src.(map[string]any)
	if !ok1 || !ok2 {
		return src
	}
	out := make(map[string]any, len(dm)+len(sm))
	for k, v := range dm {
		out[k] = v
	}
	for k, v := range sm {
		if old, ok := out[k]; ok {
			out[k] = deepMerge(old, v)
		} else {
			out[k] = v
		}
	}
	return out
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, float32, int, int64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
