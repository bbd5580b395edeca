package nodehost

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// nodeCommand is one command this host can serve, declared once: its wire
// name, params schema, handler and when this machine has it at all.
type nodeCommand struct {
	name    string
	cap     string // the capability category it belongs to
	summary string
	schema  string
	run     tools.Handler
	// available says whether this host can serve it (nil: always).
	available func(h *Host) bool
}

// commandTable is every command a headless node host may declare.
func (h *Host) commandTable() []nodeCommand {
	obj := func(props string, required ...string) string {
		req := ""
		if len(required) > 0 {
			b, _ := json.Marshal(required)
			req = `,"required":` + string(b)
		}
		return `{"type":"object","properties":{` + props + `}` + req + `}`
	}
	argv := `"command":{"type":"array","items":{"type":"string"},"minItems":1},"rawCommand":{"type":["string","null"]},` +
		`"cwd":{"type":["string","null"]},"env":{"type":["object","null"],"additionalProperties":{"type":"string"}},` +
		`"agentId":{"type":["string","null"]},"sessionKey":{"type":["string","null"]}`
	cmds := []nodeCommand{
		{name: "system.run.prepare", cap: "system", summary: "Canonical plan of a command and this node's exec policy, for approval",
			schema: obj(argv+`,"security":{"type":["string","null"]},"ask":{"type":["string","null"]},"strictInlineEval":{"type":["boolean","null"]}`, "command"),
			run:    tools.Typed(h.runPrepare)},
		{name: "system.run", cap: "system", summary: "Run a command (argv) under this node's exec approvals",
			schema: obj(argv+`,"systemRunPlan":{},"timeoutMs":{"type":["integer","null"],"minimum":0},"approved":{"type":["boolean","null"]},`+
				`"approvalDecision":{"type":["string","null"]},"approvalSource":{"type":["string","null"]},"runId":{"type":["string","null"]},`+
				`"suppressNotifyOnExit":{"type":["boolean","null"]},"needsScreenRecording":{"type":["boolean","null"]}`, "command"),
			run: tools.Typed(h.runSystemRun)},
		{name: "system.which", cap: "system", summary: "Resolve executables on this node's PATH",
			schema: obj(`"bins":{"type":"array","items":{"type":"string"}}`, "bins"), run: tools.Typed(h.runWhich)},
		{name: "system.execApprovals.get", cap: "system", summary: "This node's exec approvals file ({path, exists, hash, file})",
			schema: obj(`"includeResolvedDefaults":{"type":"boolean"}`), run: h.runApprovalsGet},
		{name: "system.execApprovals.set", cap: "system", summary: "Replace this node's exec approvals file (baseHash compare-and-set)",
			schema: obj(`"file":{"type":"object"},"baseHash":{"type":["string","null"]}`, "file"), run: tools.Typed(h.runApprovalsSet)},
		{name: "system.notify", cap: "system", summary: "Show a desktop notification (notify-send)",
			schema: obj(`"title":{"type":"string"},"body":{"type":"string"},"sound":{"type":"string"},` +
				`"priority":{"type":"string","enum":["passive","active","timeSensitive"]},"delivery":{"type":"string","enum":["system","overlay","auto"]}`),
			run: tools.Typed(h.runNotify), available: func(h *Host) bool { return h.lookPath("notify-send") != "" }},
		{name: "fs.listDir", cap: "system", summary: "List the directories of an absolute path (default: home)",
			schema: obj(`"path":{"type":"string"}`), run: tools.Typed(h.runListDir)},
		{name: "browser.proxy", cap: "browser", summary: "Run a browser control route on this node's Chromium",
			schema: obj(`"method":{"type":"string"},"path":{"type":"string"},"query":{"type":["object","null"]},"body":{},`+
				`"timeoutMs":{"type":["integer","null"],"minimum":1},"profile":{"type":["string","null"]},"errorEnvelope":{}`, "path"),
			run: tools.Typed(h.runBrowserProxy), available: (*Host).browserProxyAvailable},
	}
	canvas := func(name, summary, schema string, run tools.Handler) nodeCommand {
		// One canvas command at a time: they share one page.
		serial := func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			h.canvas.op.Lock()
			defer h.canvas.op.Unlock()
			return run(ctx, env, params)
		}
		return nodeCommand{name: name, cap: "canvas", summary: summary, schema: schema, run: serial, available: (*Host).canvasAvailable}
	}
	cmds = append(cmds,
		canvas("canvas.present", "Show the canvas (or a URL) in this node's headless Chromium page",
			obj(`"url":{"type":"string"},"target":{"type":"string"},"placement":{"type":"object"}`), tools.Typed(h.canvasPresent)),
		canvas("canvas.hide", "Hide the canvas (closes its page)", obj(``), h.canvasHide),
		canvas("canvas.navigate", "Load a URL in the canvas page", obj(`"url":{"type":"string"},"target":{"type":"string"}`), tools.Typed(h.canvasNavigate)),
		canvas("canvas.eval", "Run JavaScript in the canvas page ({result})", obj(`"javaScript":{"type":"string"}`, "javaScript"), tools.Typed(h.canvasEval)),
		canvas("canvas.snapshot", "Capture the canvas page ({format, base64})",
			obj(`"format":{"type":"string","enum":["png","jpeg","jpg"]},"maxWidth":{"type":"integer","minimum":1},"quality":{"type":"number","minimum":0,"maximum":1}`),
			tools.Typed(h.canvasSnapshot)),
		canvas("canvas.a2ui.push", "Apply A2UI v0.8 messages to the canvas", obj(`"messages":{"type":"array","items":{"type":"object"}}`, "messages"),
			tools.Typed(h.canvasA2UIPush)),
		canvas("canvas.a2ui.pushJSONL", "Apply A2UI v0.8 JSONL to the canvas", obj(`"jsonl":{"type":"string"}`, "jsonl"), tools.Typed(h.canvasA2UIPushJSONL)),
		canvas("canvas.a2ui.reset", "Clear the canvas's A2UI surfaces", obj(``), h.canvasA2UIReset),
	)
	return cmds
}

// buildSurface registers the commands this host has and decides what it
// declares: all of them, or exactly the --commands list.
func (h *Host) buildSurface(only []string) error {
	h.reg = tools.NewRegistry()
	var have []string
	caps := map[string]bool{}
	byName := map[string]nodeCommand{}
	all := h.commandTable()
	for _, c := range all {
		byName[c.name] = c
	}
	if only != nil {
		for _, name := range only {
			c, known := byName[name]
			switch {
			case !known:
				return failure.Errorf(failure.CodeUsage, "--commands: %q is not a command this node host has (it has: %s)", name, strings.Join(names(all), ", "))
			case c.available != nil && !c.available(h):
				return failure.Errorf(failure.CodeUsage, "--commands: %s is not available on this machine (%s)", name, h.unavailableWhy(c))
			}
		}
	}
	for _, c := range all {
		if only != nil && !slices.Contains(only, c.name) {
			continue
		}
		if c.available != nil && !c.available(h) {
			continue
		}
		h.reg.Register(&tools.Action{Method: c.name, Summary: c.summary, Schema: c.schema, Run: c.run, Hidden: true})
		have = append(have, c.name)
		caps[c.cap] = true
	}
	sort.Strings(have)
	h.commands = have
	h.declared = map[string]bool{}
	for _, c := range have {
		h.declared[c] = true
	}
	h.caps = nil
	for c := range caps {
		h.caps = append(h.caps, c)
	}
	sort.Strings(h.caps)
	return nil
}

func names(cmds []nodeCommand) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.name
	}
	return out
}

func (h *Host) unavailableWhy(c nodeCommand) string {
	switch c.cap {
	case "browser":
		return "needs a Chromium and nodeHost.browserProxy.enabled not false"
	case "canvas":
		return "needs a Chromium and nodeHost.canvas.enabled not false"
	}
	if c.name == "system.notify" {
		return "notify-send is not on PATH"
	}
	return "not available"
}

// lookPath finds an executable on the node host's PATH.
func (h *Host) lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// chromium reports whether the browser family will find a Chromium: the
// configured executable, else the names it tries on PATH.
func (h *Host) chromium() bool {
	if h.cfg.String("browser.executablePath", "") != "" {
		return true
	}
	for _, n := range []string{"google-chrome", "google-chrome-stable", "brave-browser", "microsoft-edge", "chromium", "chromium-browser"} {
		if h.lookPath(n) != "" {
			return true
		}
	}
	return false
}

func (h *Host) browserProxyAvailable() bool {
	return h.cfg.Bool("browser.enabled", true) && h.cfg.Bool("nodeHost.browserProxy.enabled", true) && h.chromium()
}

func (h *Host) canvasAvailable() bool {
	return h.cfg.Bool("browser.enabled", true) && h.cfg.Bool("nodeHost.canvas.enabled", true) && h.chromium()
}

// env is the environment node commands run in: this machine's config and
// state, its user as the caller (the node host acts for the machine's
// owner, who paired it), the agent the request names.
func (h *Host) env(req invokeRequest) *tools.Env {
	return &tools.Env{Config: h.cfg, StateDir: h.opts.StateDir, Workspace: h.opts.Workdir, Warn: nil,
		Subject: tools.Subject{Kind: tools.CallerUser, SessionKey: req.SessionKey}, Media: h.opts.Media}
}

// invokeTool runs a family's action through the one door.
func invokeTool(ctx context.Context, env *tools.Env, tool, verb string, args map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return tools.Invoke(ctx, env, tools.Call{Tool: tool, Verb: verb, Args: b})
}
