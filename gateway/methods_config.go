package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// guardedConfigPaths need a baseHash even for config.patch: changing them
// can lock the caller out.
var guardedConfigPaths = []string{"gateway.auth", "gateway.bind", "gateway.port", "gateway.customBindHost"}

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
	raw, err := os.ReadFile(path)
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
	return d, nil
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
		issues = append(issues, d.loaded.Issues...)
		warnings = append(warnings, d.loaded.Warnings...)
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
		return s.configWrite(method, p)
	}
}

// configWrite is set/apply/patch: compare-and-set on the file hash, build
// the next document, validate it as it would load, write atomically (with
// .bak), apply it and broadcast config.changed.
func (s *Server) configWrite(method string, p configWriteParams) (any, error) {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	d, err := s.readDiskConfig()
	if err != nil {
		return nil, err
	}
	isPatch := method == "config.patch"
	if p.BaseHash != nil && *p.BaseHash != d.hash {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, errBaseHashStale)
	}
	if p.BaseHash == nil && d.exists && !isPatch {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, errBaseHashRequired)
	}
	parsed, perr := config.ParseJSON5([]byte(p.Raw))
	incoming, ok := parsed.(map[string]any)
	if perr != nil || !ok {
		msg := "raw must be a JSON5 object"
		if perr != nil {
			msg = "raw: " + perr.Error()
		}
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid %s params: %s", method, msg)
	}

	var next map[string]any
	if isPatch {
		if d.loaded != nil && !d.loaded.Valid() || d.loadErr != nil {
			return nil, tools.Errorf(protocol.ErrInvalidRequest, "%s; fix (openclaw doctor) before patching", currentIssues(d))
		}
		merged, _ := config.MergePatch(d.authored, incoming).(map[string]any)
		next = merged
	} else {
		next = incoming
	}
	restored, err := restoreRedacted(next, d.authored, "")
	if err != nil {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "invalid %s params: %v", method, err)
	}
	next = restored.(map[string]any)
	changed := config.ChangedPaths(d.authored, next)
	if isPatch {
		if p.BaseHash == nil {
			if guarded := guardedChanges(changed); len(guarded) > 0 {
				return nil, tools.Errorf(protocol.ErrInvalidRequest,
					"config base hash required for %s; re-run config.get and retry", strings.Join(guarded, ", "))
			}
		}
		if bad := destructiveArrays(d.authored, next, changed, p.ReplacePaths); len(bad) > 0 {
			return nil, tools.Errorf(protocol.ErrInvalidRequest,
				"config.patch would replace array %s; list it in replacePaths to confirm", strings.Join(bad, ", ")).
				WithDetails(map[string]any{"paths": bad})
		}
		if len(changed) == 0 {
			return map[string]any{"ok": true, "noop": true, "changedPaths": []string{}, "path": d.path,
				"config": redactDoc(s.Config().Doc, map[string]bool{})}, nil
		}
	}
	cfg, err := s.dryRunConfig(d.path, next)
	if err != nil {
		return nil, err
	}
	hash, err := config.Write(d.path, next)
	if err != nil {
		return nil, tools.Errorf(protocol.ErrUnavailable, "%s: %v", method, err)
	}
	cfg.Path, cfg.Hash, cfg.Exists = d.path, hash, true
	if raw, err := os.ReadFile(d.path); err == nil {
		cfg.Raw = raw
	}
	if err := s.applyConfig(cfg); err != nil {
		s.log.Warnf("%s wrote %s but the running gateway kept its config: %v", method, d.path, err)
	}
	s.log.Infof("%s: wrote %s (hash %s)%s", method, d.path, short(hash), noteSuffix(p.Note))
	res := map[string]any{"ok": true, "path": d.path, "hash": hash, "config": redactDoc(cfg.Doc, map[string]bool{})}
	if method == "config.set" {
		return res, nil
	}
	if isPatch {
		res["changedPaths"] = nonNil(changed)
	}
	restart := map[string]any{"scheduled": false, "mode": "hot-reload"}
	if p.RestartDelayMs != nil {
		if err := s.ScheduleRestart(time.Duration(*p.RestartDelayMs)*time.Millisecond, method); err != nil {
			restart["error"] = err.Error()
		} else {
			restart = map[string]any{"scheduled": true, "mode": "in-place", "delayMs": *p.RestartDelayMs}
		}
	}
	res["restart"] = restart
	res["sentinel"] = map[string]any{"persisted": false, "payload": nil}
	return res, nil
}

// dryRunConfig loads next from a temp file beside the real one, so
// $include, ${VAR} and schema checks run exactly as on the next load.
func (s *Server) dryRunConfig(path string, next map[string]any) (*config.Config, error) {
	data, err := config.Marshal(next)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid config: %v", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, tools.Errorf(protocol.ErrUnavailable, "config dir: %v", err)
	}
	f, err := os.CreateTemp(dir, ".openclaw-validate-*.json")
	if err != nil {
		return nil, tools.Errorf(protocol.ErrUnavailable, "validate config: %v", err)
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, tools.Errorf(protocol.ErrUnavailable, "validate config: %v", werr)
	}
	cfg, err := config.Load(name, s.opts.Getenv)
	if err != nil {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "invalid config: %s", strings.ReplaceAll(err.Error(), name, path))
	}
	if !cfg.Valid() {
		parts := make([]string, len(cfg.Issues))
		for i, is := range cfg.Issues {
			parts[i] = displayKey(is.Path) + ": " + is.Message
		}
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "invalid config: %s", strings.Join(parts, "; ")).
			WithDetails(map[string]any{"issues": cfg.Issues})
	}
	return cfg, nil
}

func currentIssues(d *diskConfig) string {
	if d.loadErr != nil {
		return d.loadErr.Error()
	}
	parts := make([]string, len(d.loaded.Issues))
	for i, is := range d.loaded.Issues {
		parts[i] = displayKey(is.Path) + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}

func guardedChanges(changed []string) []string {
	var out []string
	for _, c := range changed {
		for _, g := range guardedConfigPaths {
			if c == g || strings.HasPrefix(c, g+".") {
				out = append(out, c)
				break
			}
		}
	}
	return out
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
