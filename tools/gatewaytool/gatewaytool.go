// Package gatewaytool is the `gateway` agent tool (Classic surface):
// restart, config reads and writes, update. It talks to the running server
// only through tools.GatewayControl and runs the config.* gateway methods
// through tools.Invoke, adding the tool-side conveniences the original has:
// a path filter and size cap on config.get, baseHash filled from a fresh
// read, and no config echo in write results (transcripts stay small).
package gatewaytool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayToolCommon are the params every gateway-backed tool accepts; inside
// the gateway they are ignored (the CLI uses --url/--token instead).
const gatewayToolCommon = `
	"gatewayUrl":{"type":"string","description":"Gateway URL override (ignored when running inside the gateway)"},
	"gatewayToken":{"type":"string","description":"Token for gatewayUrl"},
	"timeoutMs":{"type":"number","minimum":0,"description":"Timeout for the call"}`

const (
	restartDefaultDelayMs = 2000
	restartMaxDelayMs     = 60000
	configGetMaxChars     = 12000
)

func init() {
	reg := func(verb, summary, scope, props string, required []string, run tools.Handler, render tools.Renderer) {
		req := `[]` // names are plain identifiers: no JSON encoder at init
		if len(required) > 0 {
			req = `["` + strings.Join(required, `","`) + `"]`
		}
		var args, examples []string
		var stdin string
		switch verb {
		case "config.schema.lookup":
			args = []string{"path"}
		case "config.patch", "config.apply": // the JSON5 text as an argument or on stdin
			args, stdin = []string{"raw"}, "raw"
			examples = []string{"openclaw gateway " + verb + ` '{tools: {profile: "coding"}}'`, "openclaw gateway " + verb + " < change.json5"}
		}
		tools.Register(&tools.Action{
			Tool: "gateway", Verb: verb, Summary: summary, Scope: scope, Where: tools.Gateway, Args: args, StdinParam: stdin, Examples: examples,
			Schema: `{"type":"object","properties":{` + props + `,` + gatewayToolCommon + `},"required":` + string(req) + `,"additionalProperties":false}`,
			Run:    run, Render: render,
			ReadOnly:    verb == "config.get" || verb == "config.schema.lookup",
			Idempotent:  verb == "config.get" || verb == "config.schema.lookup" || verb == "config.apply",
			Destructive: verb != "config.get" && verb != "config.schema.lookup",
			OpenWorld:   verb == "update.run",
		})
	}
	reg("restart", "Restart the gateway in place after a delay (config reload, connections kept)", tools.ScopeAdmin,
		`"delayMs":{"type":"integer","minimum":0,"description":"Delay before restarting (default 2000, at most 60000)"},
		"reason":{"type":"string","description":"Why (logged)"},
		"note":{"type":"string","description":"Human note for the post-restart message"},
		"sessionKey":{"type":"string","description":"Session to tell after the restart (`+"accepted for the original's callers, unused here"+`)"}`, nil, tools.Typed(toolRestart), renderRestart)
	reg("config.get", "Read the config (secrets redacted); path narrows to a subtree", tools.ScopeRead,
		`"path":{"type":"string","description":"Dot path such as tools.web or agents.list[0]"}`, nil, tools.Typed(toolConfigGet), nil)
	reg("config.schema.lookup", "The config schema node at a dot path, with its children", tools.ScopeRead,
		`"path":{"type":"string","description":"Dot path such as gateway.auth"}`, []string{"path"}, tools.Typed(toolSchemaLookup), nil)
	writeProps := `"raw":{"type":"string","description":"JSON5 text"},
		"baseHash":{"type":"string","description":"hash from config.get (filled in from a fresh read when omitted)"},
		"note":{"type":"string","description":"Human note for the session after the restart (accepted for the original's callers, unused here: config changes reload in place)"},
		"sessionKey":{"type":"string","description":"Session to tell after the restart (accepted for the original's callers, unused here)"},
		"restartDelayMs":{"type":"integer","minimum":0,"description":"Delay before the original restarts (accepted, unused here: config changes reload in place)"}`
	reg("config.patch", "Merge-patch the config (objects merge, null deletes); prefer this over config.apply", tools.ScopeAdmin,
		writeProps+`,"replacePaths":{"type":"array","items":{"type":"string"},"maxItems":256,"description":"Array paths that may shrink"}`,
		[]string{"raw"}, toolConfigWrite("config.patch"), renderToolWrite)
	reg("config.apply", "Replace the whole config with raw (validated first)", tools.ScopeAdmin,
		writeProps, []string{"raw"}, toolConfigWrite("config.apply"), renderToolWrite)
	reg("update.run", "Report the running version and how to update this binary (it never updates itself)", tools.ScopeAdmin,
		`"note":{"type":"string","description":"Human note for the session after an update (accepted for the original's callers, unused here)"},`+
			`"sessionKey":{"type":"string","description":"Session to tell after an update (accepted for the original's callers, unused here)"},`+
			`"restartDelayMs":{"type":"integer","minimum":0,"description":"Delay before the original restarts after an update (accepted, unused here)"}`,
		nil, toolUpdateRun, nil)
}

// method runs a gateway method through the one door, as the caller (its
// role and scopes apply to the method too).
func method(ctx context.Context, env *tools.Env, name string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return tools.Invoke(ctx, env, tools.Call{Method: name, Args: b})
}

type restartParams struct {
	DelayMs *int64 `json:"delayMs"`
	Reason  string `json:"reason"`
	Note    string `json:"note"`
}

func toolRestart(ctx context.Context, env *tools.Env, p restartParams) (any, error) {
	gw, err := env.NeedGateway("gateway restart")
	if err != nil {
		return nil, err
	}
	if !env.Config.Bool("commands.restart", true) {
		return nil, tools.Errorf(tools.CodeDenied, "Gateway restart is disabled (commands.restart=false).")
	}
	delay := int64(restartDefaultDelayMs)
	if p.DelayMs != nil {
		delay = min(max(*p.DelayMs, 0), restartMaxDelayMs)
	}
	reason := p.Reason
	if reason == "" {
		reason = p.Note
	}
	coalesced, err := gw.ScheduleRestart(time.Duration(delay)*time.Millisecond, reason)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%v", err)
	}
	out := map[string]any{"ok": true, "pid": os.Getpid(), "signal": "SIGUSR1", "delayMs": delay,
		"mode": "emit", "coalesced": coalesced}
	if reason != "" {
		out["reason"] = reason
	}
	return out, nil
}

func renderRestart(w io.Writer, r gjson.Result) error {
	if r.Get("coalesced").Bool() {
		_, err := fmt.Fprintln(w, "A gateway restart is already scheduled.")
		return err
	}
	_, err := fmt.Fprintf(w, "Gateway restart scheduled in %d ms (pid %d).\n", r.Get("delayMs").Int(), r.Get("pid").Int())
	return err
}

type pathParams struct {
	Path string `json:"path"`
}

func toolConfigGet(ctx context.Context, env *tools.Env, p pathParams) (any, error) {
	snap, err := method(ctx, env, "config.get", map[string]any{})
	if err != nil {
		return nil, err
	}
	if p.Path == "" {
		if len(snap) > configGetMaxChars {
			return nil, tools.Errorf(tools.CodeFailed, "config.get response is too large; use path to request a narrower config subtree")
		}
		return snap, nil
	}
	var full struct {
		Hash   string         `json:"hash"`
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(snap, &full); err != nil {
		return nil, fmt.Errorf("gateway config.get: %w", err)
	}
	sub, ok := (&config.Config{Doc: full.Config}).Get(p.Path)
	if !ok {
		return nil, tools.Errorf(tools.CodeNotFound, "config path not found: %s", p.Path)
	}
	out, err := json.Marshal(map[string]any{"hash": full.Hash, "path": p.Path, "config": sub})
	if err != nil {
		return nil, err
	}
	if len(out) > configGetMaxChars {
		return nil, tools.Errorf(tools.CodeFailed, "config.get response is too large; use path to request a narrower config subtree")
	}
	return json.RawMessage(out), nil
}

func toolSchemaLookup(ctx context.Context, env *tools.Env, p pathParams) (any, error) {
	res, err := method(ctx, env, "config.schema.lookup", map[string]any{"path": p.Path})
	if err != nil {
		// The original tool answers a missing path as data the model can act on.
		return map[string]any{"ok": false, "code": "schema_path_not_found", "path": p.Path,
			"message": "config schema path not found"}, nil
	}
	return res, nil
}

func toolConfigWrite(name string) tools.Handler {
	return tools.Typed(func(ctx context.Context, env *tools.Env, p map[string]any) (any, error) {
		for _, k := range []string{"gatewayUrl", "gatewayToken", "timeoutMs"} {
			delete(p, k)
		}
		if _, ok := p["baseHash"]; !ok {
			snap, err := method(ctx, env, "config.get", map[string]any{})
			if err != nil {
				return nil, err
			}
			h := gjson.GetBytes(snap, "hash")
			if !h.Exists() {
				return nil, tools.Errorf(tools.CodeFailed, "Missing baseHash from config snapshot.")
			}
			p["baseHash"] = h.String()
		}
		res, err := method(ctx, env, name, p)
		if err != nil {
			return nil, err
		}
		var out map[string]any
		if err := json.Unmarshal(res, &out); err != nil {
			return res, nil
		}
		delete(out, "config")
		return out, nil
	})
}

func renderToolWrite(w io.Writer, r gjson.Result) error {
	if r.Get("noop").Bool() {
		_, err := fmt.Fprintln(w, "No change")
		return err
	}
	_, err := fmt.Fprintf(w, "Updated %s (hash %s)\n", joinResults(r.Get("changedPaths").Array()), r.Get("hash").String())
	return err
}

// toolUpdateRun explains how to update: this binary never updates itself,
// so the action fails (exit 1) with the facts in details.
func toolUpdateRun(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	version := "unknown"
	if gw, err := env.NeedGateway("gateway update.run"); err == nil {
		version = gw.Version()
	}
	exe, _ := os.Executable()
	return nil, tools.Errorf(tools.CodeFailed, "%s", "This gateway is a single static binary and does not update itself. To update: build or "+
		"download a newer openclaw binary, replace "+exe+", then restart the gateway "+
		"(SIGTERM and start it again; SIGUSR1 only reloads the config).").WithDetails(map[string]any{
		"status": "skipped", "code": "update_unsupported",
		"version": version, "binary": exe, "platform": runtime.GOOS + "/" + runtime.GOARCH,
	})
}

func joinResults(rs []gjson.Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}
