package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// IncludeKey is the directive that pulls other files into the config.
const IncludeKey = "$include"

// Include caps. Depth, per-file size and path length are the original's
// (src/config/includes.ts). The original has no count or total cap, so a
// fan-out (8 files each including the next 10 times) expands to 10^7
// loads; the count and total-size caps are ours and bound the expanded
// document: a file included N times counts N times.
const (
	// MaxIncludeDepth bounds nested $include chains.
	MaxIncludeDepth = 10
	// MaxIncludes bounds the $include references resolved in one load,
	// counting a file as often as it is included (directly or not).
	MaxIncludes = 512
	// MaxIncludeTotalBytes bounds the bytes of every included file summed
	// over every time it is included.
	MaxIncludeTotalBytes = 16 << 20
	// maxIncludeBytes bounds one included file.
	maxIncludeBytes = 2 << 20
	maxIncludePath  = 4096
)

// includer resolves $include directives (§6.3). Every file must live under
// one of roots (the main config's directory plus OPENCLAW_INCLUDE_ROOTS),
// checked both lexically and after resolving symlinks.
type includer struct {
	ctx       context.Context
	roots     []string // cleaned absolute roots
	realRoots []string // the same with symlinks resolved
	files     []string // every file included, once each, in order
	// memo holds each file's resolved value: a file is read and parsed
	// once per load however often it is included.
	memo    map[string]*included
	count   int   // include references so far, expanded
	bytes   int64 // included bytes so far, expanded
	deepest int   // longest include chain reached so far
}

// included is a resolved file and what including it once costs.
type included struct {
	value  any
	height int   // include levels below the file
	count  int   // include references it expands to, itself included
	bytes  int64 // bytes it expands to, itself included
}

func newIncluder(ctx context.Context, configPath string, getenv func(string) string) *includer {
	if ctx == nil {
		ctx = context.Background()
	}
	in := &includer{ctx: ctx, memo: map[string]*included{}}
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
		// Sorted: includes load in a stable order (IncludedPaths, errors).
		for _, k := range sortedKeys(t) {
			if k == IncludeKey {
				continue
			}
			e := t[k]
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
	if err := in.ctx.Err(); err != nil {
		return nil, fmt.Errorf("$include in %s: %w", from, err)
	}
	if len(chain) > MaxIncludeDepth {
		return nil, fmt.Errorf("$include in %s: maximum include depth (%d) exceeded at %s", from, MaxIncludeDepth, p)
	}
	if m, ok := in.memo[target]; ok {
		// A finished file cannot reach the current chain (that would have
		// been a cycle while it resolved), so reuse is safe.
		if len(chain)+m.height > MaxIncludeDepth {
			return nil, fmt.Errorf("$include in %s: maximum include depth (%d) exceeded below %s", from, MaxIncludeDepth, p)
		}
		if err := in.charge(from, m.count, m.bytes); err != nil {
			return nil, err
		}
		in.deepest = max(in.deepest, len(chain)+m.height)
		return m.value, nil
	}
	data, _, err := readRegular(target, maxIncludeBytes)
	if err != nil {
		return nil, fmt.Errorf("$include in %s: %w", from, err)
	}
	startCount, startBytes := in.count, in.bytes
	if err := in.charge(from, 1, int64(len(data))); err != nil {
		return nil, err
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
	saved := in.deepest
	in.deepest = len(chain)
	v, err = in.resolve(v, append(append([]string{}, chain...), target))
	if err != nil {
		return nil, err
	}
	in.memo[target] = &included{value: v, height: in.deepest - len(chain),
		count: in.count - startCount, bytes: in.bytes - startBytes}
	in.deepest = max(saved, in.deepest)
	return v, nil
}

// charge adds n include references and size bytes to the load's totals
// and fails once a cap is passed.
func (in *includer) charge(from string, n int, size int64) error {
	in.count += n
	in.bytes += size
	if in.count > MaxIncludes {
		return fmt.Errorf("$include in %s: maximum $include count (%d per load, a file counted each time it is included) exceeded", from, MaxIncludes)
	}
	if in.bytes > MaxIncludeTotalBytes {
		return fmt.Errorf("$include in %s: maximum total $include size (%d bytes per load, a file counted each time it is included) exceeded", from, MaxIncludeTotalBytes)
	}
	return nil
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

// readRegular reads a regular file of at most limit bytes. The type and
// size are checked on the opened descriptor (a FIFO is refused without
// blocking), and the returned info is of that descriptor, so it describes
// exactly the bytes read.
func readRegular(p string, limit int64) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	if limit > 0 && st.Size() > limit {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return data, st, nil
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
