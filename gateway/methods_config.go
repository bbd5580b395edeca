package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// CAS error texts the CLI matches on (§5.2).
const (
	errBaseHashRequired = "config base hash required; re-run config.get and retry"
	errBaseHashStale    = "config changed since last load; re-run config.get and retry"
)

// diskConfig is the config file as it is on disk right now.
type diskConfig struct {
	path     string
	exists   bool
	raw      []byte
	hash     string
	authored map[string]any // parsed text: $include and ${VAR} left as written
	loaded   *config.Config // resolved; nil when loading failed
	loadErr  error
}

func (s *Server) configPath() (string, error) {
	if s.paths.ConfigPath == "" {
		return "", tools.Errorf(protocol.ErrUnavailable, "the gateway has no config file path")
	}
	return s.paths.ConfigPath, nil
}

// readDiskConfig reads and parses the file; a broken file is reported in
// loadErr, not as an error, so config.get can show it.
func (s *Server) readDiskConfig() (*diskConfig, error) {
	path, err := s.configPath()
	if err != nil {
		return nil, err
	}
	d := &diskConfig{path: path, authored: map[string]any{}}
	raw, err := config.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read config %s: %w", path, err)
	default:
		d.exists, d.raw = true, raw
	}
	d.hash = config.HashRaw(d.raw)
	if d.exists {
		v, perr := config.ParseJSON5(raw)
		m, ok := v.(map[string]any)
		if perr != nil || !ok {
			d.loadErr = perr
			if d.loadErr == nil {
				d.loadErr = errors.New("the top level must be an object")
			}
			return d, nil
		}
		d.authored = m
	}
	d.loaded, d.loadErr = config.Load(path, s.opts.Getenv)
	d.loadErr = loadCause(d.loadErr)
	return d, nil
}

// loadCause drops the CLI's "check it with openclaw config validate" hint
// from a load error: gateway callers get the bare reason.
func loadCause(err error) error {
	var le *config.LoadError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func init() {
	registerMethod(&tools.Action{
		Method:  "config.get",
		Summary: "Show the gateway config (secrets redacted) and its hash",
		Schema:  `{"type":"object","additionalProperties":false}`,
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "config.get")
			if err != nil {
				return nil, err
			}
			return s.configGet()
		},
		Render: func(w io.Writer, r gjson.Result) error {
			_, err := fmt.Fprintf(w, "%s (valid: %t, hash %s)\n%s\n", r.Get("path").String(), r.Get("valid").Bool(),
				r.Get("hash").String(), r.Get("config").Raw)
			return err
		},
	})
	registerMethod(&tools.Action{
		Method:  "config.schema",
		Summary: "Show the JSON Schema of openclaw.json",
		Schema:  `{"type":"object","additionalProperties":false}`,
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			return map[string]any{"schema": config.Schema(), "uiHints": map[string]any{},
				"version": "1", "generatedAt": schemaGeneratedAt}, nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			_, err := fmt.Fprintln(w, r.Get("schema").Raw)
			return err
		},
	})
	registerMethod(&tools.Action{
		Method:  "config.schema.lookup",
		Summary: "Show the schema node at a config path and its children",
		Args:    []string{"path"},
		Schema: `{"type":"object","required":["path"],"properties":{"path":{"type":"string","minLength":1,"maxLength":1024,
			"description":"Dot path (gateway.auth, agents.list[].tools)"}},"additionalProperties":false}`,
		Scope: protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			res, err := config.SchemaLookup(gjson.GetBytes(params, "path").String())
			if err != nil {
				return nil, tools.Errorf(protocol.ErrInvalidRequest, "%s", err.Error())
			}
			return res, nil
		},
		Render: func(w io.Writer, r gjson.Result) error {
			if _, err := fmt.Fprintf(w, "%s: %s\n", r.Get("path").String(), r.Get("schema.type").String()); err != nil {
				return err
			}
			for _, c := range r.Get("children").Array() {
				if _, err := fmt.Fprintf(w, "  %s (%s)\n", c.Get("path").String(), c.Get("type").String()); err != nil {
					return err
				}
			}
			return nil
		},
	})
	writeSchema := func(extra string) string {
		return `{"type":"object","required":["raw"],"properties":{
			"raw":{"type":"string","description":"JSON5 document"},
			"baseHash":{"type":"string","description":"hash from config.get (compare-and-set)"},
			"sessionKey":{"type":"string"},"note":{"type":"string"},
			"deliveryContext":{"type":"object"},
			"restartDelayMs":{"type":"integer","minimum":0}` + extra + `},"additionalProperties":false}`
	}
	registerMethod(&tools.Action{
		Method:  "config.set",
		Summary: "Replace the whole config (baseHash compare-and-set)",
		Schema: `{"type":"object","required":["raw"],"properties":{"raw":{"type":"string","description":"JSON5 document"},
			"baseHash":{"type":"string","description":"hash from config.get (compare-and-set)"}},"additionalProperties":false}`,
		Scope:  protocol.ScopeAdmin,
		Run:    configWriteHandler("config.set"),
		Render: renderConfigWrite,
	})
	registerMethod(&tools.Action{
		Method:  "config.apply",
		Summary: "Validate and replace the config, optionally scheduling a restart",
		Schema:  writeSchema(""),
		Scope:   protocol.ScopeAdmin,
		Run:     configWriteHandler("config.apply"),
		Render:  renderConfigWrite,
	})
	registerMethod(&tools.Action{
		Method:  "config.patch",
		Summary: "Merge-patch the config (null deletes; arrays need replacePaths)",
		Schema:  writeSchema(`,"replacePaths":{"type":"array","maxItems":256,"items":{"type":"string"}}`),
		Scope:   protocol.ScopeAdmin,
		Run:     configWriteHandler("config.patch"),
		Render:  renderConfigWrite,
	})
}

// schemaGeneratedAt is fixed per process: the schema is embedded.
var schemaGeneratedAt = time.Now().UTC().Format(time.RFC3339)

// configGet builds the config.get snapshot (§5.2) from the file on disk.
func (s *Server) configGet() (map[string]any, error) {
	d, err := s.readDiskConfig()
	if err != nil {
		return nil, err
	}
	secrets := map[string]bool{}
	parsed := redactDoc(d.authored, secrets)
	var resolved any = map[string]any{}
	issues, warnings := []config.Issue{}, []string{}
	valid := true
	var included []string
	if d.loaded != nil {
		resolved = redactDoc(d.loaded.Doc, secrets)
		issues = append(issues, d.loaded.Issues()...)
		warnings = append(warnings, d.loaded.Warnings()...)
		valid = d.loaded.Valid()
		included = d.loaded.IncludedPaths
	} else if d.loadErr != nil {
		valid = false
		issues = append(issues, config.Issue{Path: "", Message: d.loadErr.Error()})
	}
	var raw any
	if d.exists {
		raw = redactRaw(string(d.raw), secrets)
	}
	return map[string]any{
		"path": d.path, "exists": d.exists, "raw": raw,
		"parsed": parsed, "sourceConfig": parsed,
		"resolved": resolved, "runtimeConfig": resolved, "config": resolved,
		"valid": valid, "issues": issues, "warnings": warnings, "legacyIssues": []any{},
		"includedPaths": nonNil(included),
		"hash":          d.hash, "configRevisionHash": d.hash, "appliedConfigHash": s.Config().Hash,
	}, nil
}

// configWriteParams are the union of set/apply/patch params.
type configWriteParams struct {
	Raw            string   `json:"raw"`
	BaseHash       *string  `json:"baseHash"`
	ReplacePaths   []string `json:"replacePaths"`
	Note           string   `json:"note"`
	SessionKey     string   `json:"sessionKey"`
	RestartDelayMs *int64   `json:"restartDelayMs"`
}

func configWriteHandler(method string) tools.Handler {
	return func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
		s, err := serverFrom(env, method)
		if err != nil {
			return nil, err
		}
		var p configWriteParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "invalid %s params: %v", method, err)
		}
		return s.configWrite(ctx, method, p)
	}
}

// configWrite is set/apply/patch through config.Edit (the one write path,
// shared with the CLI): under the config file lock it compares-and-sets
// on the file hash, builds the next document, validates it as it would
// load, writes it atomically (with .bak), and then — still holding
// configMu, which the hot reload takes too — applies it and broadcasts
// config.changed, so the running config's hash is the file's.
//
// Base-hash rules are the original's: set/apply need baseHash once the
// file exists; a hashless patch may only change ui.prefs (last writer
// wins); a baseHash on a missing file is accepted.
func (s *Server) configWrite(ctx context.Context, method string, p configWriteParams) (any, error) {
	path, err := s.configPath()
	if err != nil {
		return nil, err
	}
	s.configMu.Lock()
	defer s.configMu.Unlock()
	isPatch := method == "config.patch"
	hashless := p.BaseHash == nil || strings.TrimSpace(*p.BaseHash) == ""
	var base *string
	if !hashless {
		base = p.BaseHash
	}
	// A config the gateway could not run (e.g. token mode with no token)
	// is refused before it is written: the file and the running config
	// never part ways.
	check := func(cfg *config.Config) error {
		if _, _, err := s.nextAuth(cfg); err != nil {
			return tools.Errorf(protocol.ErrInvalidRequest, "invalid config: %v", err)
		}
		return nil
	}
	res, err := config.Edit(ctx, path, config.EditOptions{BaseHash: base, Getenv: s.opts.Getenv, Always: !isPatch, Check: check},
		func(d *config.Draft) error {
			if hashless && d.Exists && !isPatch {
				return tools.Errorf(protocol.ErrInvalidRequest, errBaseHashRequired)
			}
			if isPatch && (d.LoadErr != nil || !d.Current.Valid()) {
				return tools.Errorf(protocol.ErrInvalidRequest, "%s; fix (openclaw doctor) before patching", draftIssues(d))
			}
			parsed, perr := config.ParseJSON5([]byte(p.Raw))
			incoming, ok := parsed.(map[string]any)
			if perr != nil || !ok {
				if isPatch && perr == nil {
					return tools.Errorf(protocol.ErrInvalidRequest, "config.patch raw must be an object")
				}
				msg := "raw must be a JSON5 object"
				if perr != nil {
					msg = "raw: " + perr.Error()
				}
				return tools.Errorf(tools.CodeInvalidParams, "invalid %s params: %s", method, msg)
			}
			if isPatch && hashless && !hashlessStructureOK(incoming) {
				return tools.Errorf(protocol.ErrInvalidRequest, errBaseHashRequired)
			}
			next := incoming
			if isPatch {
				next, _ = config.MergePatch(d.Doc, incoming).(map[string]any)
			}
			restored, err := restoreRedacted(next, d.Doc, "")
			if err != nil {
				return tools.Errorf(protocol.ErrInvalidRequest, "invalid %s params: %v", method, err)
			}
			next = restored.(map[string]any)
			if isPatch {
				changed := config.ChangedPaths(d.Doc, next)
				if bad := destructiveArrays(d.Doc, next, changed, p.ReplacePaths); len(bad) > 0 {
					return tools.Errorf(protocol.ErrInvalidRequest,
						"config.patch would replace array %s; list it in replacePaths to confirm", strings.Join(bad, ", ")).
						WithDetails(map[string]any{"paths": bad})
				}
				if hashless {
					if guarded := hashGuarded(changed); len(guarded) > 0 {
						return tools.Errorf(protocol.ErrInvalidRequest,
							"config base hash required for %s; re-run config.get and retry with baseHash", strings.Join(guarded, ", "))
					}
				}
			}
			d.Doc = next
			return nil
		})
	var inv *config.InvalidError
	switch {
	case errors.Is(err, config.ErrStaleHash):
		return nil, tools.Errorf(protocol.ErrInvalidRequest, errBaseHashStale)
	case errors.As(err, &inv):
		e := tools.Errorf(protocol.ErrInvalidRequest, "%s", inv.Error())
		if len(inv.Issues) > 0 {
			e = e.WithDetails(map[string]any{"issues": inv.Issues})
		}
		return nil, e
	case err != nil:
		var te *tools.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, tools.Errorf(protocol.ErrUnavailable, "%s: %v", method, err)
	}
	if res.Noop {
		return map[string]any{"ok": true, "noop": true, "changedPaths": []string{}, "path": path,
			"config": redactDoc(s.Config().Doc, map[string]bool{})}, nil
	}
	cfg := res.Config
	if err := s.applyConfig(cfg); err != nil {
		s.log.Warnf("%s wrote %s but the running gateway kept its config: %v", method, path, err)
	}
	s.log.Infof("%s: wrote %s (hash %s)%s", method, path, short(res.Hash), noteSuffix(p.Note))
	out := map[string]any{"ok": true, "path": path, "hash": res.Hash, "config": redactDoc(cfg.Doc, map[string]bool{})}
	if method == "config.set" {
		return out, nil
	}
	if isPatch {
		out["changedPaths"] = nonNil(res.Changed)
	}
	restart := map[string]any{"scheduled": false, "mode": "hot-reload"}
	if p.RestartDelayMs != nil {
		if err := s.ScheduleRestart(time.Duration(*p.RestartDelayMs)*time.Millisecond, method); err != nil {
			restart["error"] = err.Error()
		} else {
			restart = map[string]any{"scheduled": true, "mode": "in-place", "delayMs": *p.RestartDelayMs}
		}
	}
	out["restart"] = restart
	out["sentinel"] = map[string]any{"persisted": false, "payload": nil}
	return out, nil
}

func draftIssues(d *config.Draft) string {
	if d.LoadErr != nil {
		return loadCause(d.LoadErr).Error()
	}
	issues := d.Current.Issues()
	parts := make([]string, len(issues))
	for i, is := range issues {
		parts[i] = displayKey(is.Path) + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}

// hashlessPatchPrefixes are the paths a config.patch may change without
// baseHash (last writer wins), as in the original: UI preferences only.
var hashlessPatchPrefixes = []string{"ui.prefs"}

// hashGuarded lists changed paths outside hashlessPatchPrefixes.
func hashGuarded(changed []string) []string {
	var out []string
	for _, c := range changed {
		if !slices.ContainsFunc(hashlessPatchPrefixes, func(p string) bool { return c == p || strings.HasPrefix(c, p+".") }) {
			out = append(out, c)
		}
	}
	return out
}

// hashlessStructureOK mirrors the original's hasHashlessPatchLwwStructure:
// along each hashless prefix present in the patch, every level must be an
// object.
func hashlessStructureOK(patch map[string]any) bool {
	for _, prefix := range hashlessPatchPrefixes {
		var node any = patch
		for _, seg := range strings.Split(prefix, ".") {
			m, ok := node.(map[string]any)
			if !ok {
				return false
			}
			next, has := m[seg]
			if !has {
				break
			}
			if _, ok := next.(map[string]any); !ok {
				return false
			}
			node = next
		}
	}
	return true
}

// destructiveArrays lists changed paths where an existing array is
// replaced by one that lacks some of its elements and the path is not
// confirmed in replacePaths. An explicit null delete is not destructive.
func destructiveArrays(before, after map[string]any, changed, replace []string) []string {
	bc, ac := &config.Config{Doc: before}, &config.Config{Doc: after}
	var out []string
	for _, p := range changed {
		old, ok := bc.Get(p)
		oldArr, isArr := old.([]any)
		if !ok || !isArr || len(oldArr) == 0 {
			continue
		}
		nv, _ := ac.Get(p)
		newArr, isArr := nv.([]any)
		if !isArr {
			continue // deleted with null or replaced by a non-array: explicit
		}
		lost := false
		for _, o := range oldArr {
			if !slices.ContainsFunc(newArr, func(n any) bool { return jsonEqual(o, n) }) {
				lost = true
				break
			}
		}
		if lost && !pathListed(p, replace) {
			out = append(out, p)
		}
	}
	return out
}

// pathListed matches a concrete path against replacePaths entries, where
// "*" matches one key and "[]" any index.
func pathListed(path string, patterns []string) bool {
	norm := func(p string) []string {
		p = strings.ReplaceAll(p, "[]", ".*")
		for {
			i := strings.IndexByte(p, '[')
			if i < 0 {
				break
			}
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				break
			}
			p = p[:i] + ".*" + p[i+j+1:]
		}
		return strings.Split(strings.Trim(p, "."), ".")
	}
	want := norm(path)
	for _, pat := range patterns {
		ps := norm(pat)
		if len(ps) != len(want) {
			continue
		}
		match := true
		for i := range ps {
			if ps[i] != "*" && ps[i] != want[i] && want[i] != "*" {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return " — " + note
}

func renderConfigWrite(w io.Writer, r gjson.Result) error {
	if r.Get("noop").Bool() {
		_, err := fmt.Fprintln(w, "No changes.")
		return err
	}
	_, err := fmt.Fprintf(w, "Wrote %s (hash %s)\n", r.Get("path").String(), r.Get("hash").String())
	if err != nil {
		return err
	}
	for _, p := range r.Get("changedPaths").Array() {
		if _, err := fmt.Fprintf(w, "  changed %s\n", p.String()); err != nil {
			return err
		}
	}
	return nil
}
