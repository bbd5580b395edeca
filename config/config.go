// Package config reads and writes openclaw.json: JSON5, $include, ${VAR},
// validation with precise paths, a content hash for compare-and-set,
// merge-patch and atomic writes with a .bak.
package config

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Config is one loaded configuration file.
type Config struct {
	// Path is the file the config was read from (it may not exist).
	Path string
	// Exists is false when the file is missing: defaults apply.
	Exists bool
	// Raw is the file's bytes as read (nil when missing).
	Raw []byte
	// Doc is the resolved document ($include merged, ${VAR} substituted).
	Doc map[string]any
	// Hash is the compare-and-set hash of Raw (sha256 hex).
	Hash string
	// IncludedPaths lists the files pulled in by $include, in load order.
	IncludedPaths []string
	// ModTime and Size describe the file whose bytes are Raw (taken from
	// the descriptor that read them), so a watcher comparing them with a
	// later stat notices any change made after this load.
	ModTime time.Time
	Size    int64

	// lazy holds what is derived from Doc on first use: the schema check
	// (so a CLI call that only reads a few keys never compiles the schema)
	// and the typed sections. Shared by copies of the Config.
	lazy *derived
}

// derived is computed from Doc once per load.
type derived struct {
	validOnce sync.Once
	issues    []Issue
	warnings  []string

	gatewayOnce, toolsOnce, agentsOnce sync.Once // one per section: a call decodes only what it reads
	sections                           sections
}

// derived returns the load's cache; a Config built as a literal has none
// and derives afresh on each call (never written: Configs are shared).
func (c *Config) derived() *derived {
	if c.lazy != nil {
		return c.lazy
	}
	return &derived{}
}

func (c *Config) validate() *derived {
	d := c.derived()
	d.validOnce.Do(func() {
		issues, warnings := Validate(c.Doc)
		d.issues = issues
		for _, w := range warnings {
			d.warnings = append(d.warnings, FormatWarning(w))
		}
	})
	return d
}

// Issues are schema errors (wrong types, bad enum values): the file
// loaded but is not valid. Empty when valid. The schema check runs on the
// first call to Issues, Warnings or Valid.
func (c *Config) Issues() []Issue {
	if c == nil {
		return nil
	}
	return c.validate().issues
}

// Warnings are non-fatal findings ("tools: Unrecognized key: \"x\"").
func (c *Config) Warnings() []string {
	if c == nil {
		return nil
	}
	return c.validate().warnings
}

// Valid reports whether the loaded document passes schema validation.
func (c *Config) Valid() bool { return c != nil && len(c.Issues()) == 0 }

// Empty returns a config with no file behind it: every default applies.
func Empty() *Config {
	return &Config{Doc: map[string]any{}, Hash: HashRaw(nil), lazy: &derived{}}
}

// Get returns the value at a dot/bracket path ("tools.fs.workspaceOnly",
// "agents.list[0].id").
func (c *Config) Get(path string) (any, bool) {
	if c == nil {
		return nil, false
	}
	segs, err := ParsePath(path)
	if err != nil {
		return nil, false
	}
	return getPath(c.Doc, segs)
}

// Decode decodes the value at path into v (through JSON). A missing path
// leaves v untouched and returns nil.
func (c *Config) Decode(path string, v any) error {
	val, ok := c.Get(path)
	if !ok {
		return nil
	}
	b, err := json.Marshal(val)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// Bool returns the boolean at path, or def.
func (c *Config) Bool(path string, def bool) bool {
	if v, ok := c.Get(path); ok {
		if b, ok := v.(bool); ok {
			return b
		}
	}
	return def
}

// String returns the string at path, or def.
func (c *Config) String(path, def string) string {
	if v, ok := c.Get(path); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return def
}

// Int returns the number at path as an int, or def.
func (c *Config) Int(path string, def int) int {
	if v, ok := c.Get(path); ok {
		switch n := v.(type) {
		case float64:
			return int(n)
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return int(i)
			}
		case int:
			return n
		case int64:
			return int(n)
		}
	}
	return def
}
