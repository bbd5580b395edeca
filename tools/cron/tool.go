package cron

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The `cron` agent tool (spec §1.11, Classic): one flat object with an
// action enum; each action runs the matching gateway method through the
// one door, as the caller (an operator's scopes apply to the method too).
// Results are the method's JSON as text plus details (jsonResult).

// toolCommon are the params every gateway-backed tool accepts; inside the
// gateway they are ignored (the CLI has --url/--token).
const toolCommon = `"gatewayUrl":{"type":"string","description":"Gateway URL override (ignored inside the gateway)"},
	"gatewayToken":{"type":"string","description":"Token for gatewayUrl"},
	"timeoutMs":{"type":"number","minimum":0,"description":"Timeout for the call"}`

// flatJobKeys are the job fields a model may put at the top level of an
// add call instead of inside job (weaker models flatten it).
var flatJobKeys = []string{"name", "schedule", "sessionTarget", "wakeMode", "payload", "delivery", "enabled", "description",
	"deleteAfterRun", "agentId", "sessionKey", "message", "text", "model", "thinking", "timeoutSeconds", "allowUnsafeExternalContent"}

func init() {
	reg := func(verb, summary, scope, props string, closed bool, run tools.Handler, render tools.Renderer) {
		schema := `{"type":"object","properties":{` + props + `,` + toolCommon + `}`
		if closed {
			schema += `,"additionalProperties":false`
		}
		schema += `}`
		tools.Register(&tools.Action{Tool: "cron", Verb: verb, Summary: summary, Scope: scope, Where: tools.Gateway,
			Schema: schema, Run: run, Render: render})
	}
	idp := `"jobId":{"type":"string","description":"job id (canonical)"},"id":{"type":"string","description":"job id (compatibility alias of jobId)"}`
	reg("status", "Scheduler status (enabled, job count, next wake).", protocol.ScopeRead, `"includeDisabled":{"type":"boolean"}`, true,
		toolMethod("cron.status", func(obj) (any, error) { return map[string]any{}, nil }), nil)
	reg("list", "List jobs (includeDisabled to show disabled ones too).", protocol.ScopeRead,
		`"includeDisabled":{"type":"boolean","description":"include disabled jobs (list)"}`, true,
		toolMethod("cron.list", func(m obj) (any, error) {
			p := map[string]any{}
			if b, ok := m["includeDisabled"].(bool); ok {
				p["includeDisabled"] = b
			}
			return p, nil
		}), nil)
	reg("add", `Create a job from job={name, schedule, sessionTarget, wakeMode, payload, delivery?}. `+
		`schedule: {kind:"at", at:ISO time} (a one-shot; ISO times without an offset are UTC) | {kind:"every", everyMs} | `+
		`{kind:"cron", expr, tz} (expr is wall time in tz: never convert it to UTC). `+
		`sessionTarget "main" needs payload {kind:"systemEvent", text} (queued for the main session); `+
		`"isolated" needs payload {kind:"agentTurn", message} (a fresh agent turn; delivery announce by default). `+
		`wakeMode "now" or "next-heartbeat". Use jobId as the canonical identifier; id is accepted for compatibility.`,
		protocol.ScopeAdmin,
		`"job":{"type":"object","description":"the job (add)","additionalProperties":true},
		"contextMessages":{"type":"number","minimum":0,"maximum":10,"description":"recent messages to append to a systemEvent text (add)"}`,
		false, toolAdd, nil)
	reg("update", "Change a job: jobId and patch (the fields to change).", protocol.ScopeAdmin,
		idp+`,"patch":{"type":"object","description":"fields to change (update)","additionalProperties":true}`, true,
		toolMethod("cron.update", func(m obj) (any, error) {
			id, err := toolJobID(m)
			if err != nil {
				return nil, err
			}
			patch, ok := objOf(m["patch"])
			if !ok {
				return nil, tools.Errorf(tools.CodeInvalidParams, "patch required")
			}
			return map[string]any{"id": id, "patch": patch}, nil
		}), nil)
	reg("remove", "Remove a job by jobId.", protocol.ScopeAdmin, idp, true, toolByID("cron.remove", nil), nil)
	reg("run", "Run a job now by jobId (runMode due runs it only if due; default force).", protocol.ScopeAdmin,
		idp+`,"runMode":{"type":"string","enum":["due","force"],"description":"run: due or force (default)"}`, true,
		toolByID("cron.run", func(m obj, p map[string]any) {
			p["mode"] = "force"
			if s, ok := str(m, "runMode"); ok {
				p["mode"] = s
			}
		}), nil)
	reg("runs", "Run history of a job by jobId, newest first.", protocol.ScopeRead, idp, true, toolByID("cron.runs", nil), nil)
	reg("wake", "Queue text as a system event for the main session (mode now, or next-heartbeat by default).", protocol.ScopeWrite,
		`"text":{"type":"string","description":"the event text (wake)"},"mode":{"type":"string","enum":["now","next-heartbeat"],"description":"wake mode (default next-heartbeat)"}`, true,
		toolMethod("wake", func(m obj) (any, error) {
			text, ok := str(m, "text")
			if !ok {
				return nil, tools.Errorf(tools.CodeInvalidParams, "text required")
			}
			mode, ok := str(m, "mode")
			if !ok {
				mode = WakeNextHeartbeat
			}
			return map[string]any{"text": text, "mode": mode}, nil
		}), nil)
}

// toolJobID is jobId, else id.
func toolJobID(m obj) (string, error) {
	if s, ok := str(m, "jobId"); ok {
		return s, nil
	}
	if s, ok := str(m, "id"); ok {
		return s, nil
	}
	return "", tools.Errorf(tools.CodeInvalidParams, "jobId required (id accepted for backward compatibility)")
}

func toolByID(method string, more func(m obj, p map[string]any)) tools.Handler {
	return toolMethod(method, func(m obj) (any, error) {
		id, err := toolJobID(m)
		if err != nil {
			return nil, err
		}
		p := map[string]any{"id": id}
		if more != nil {
			more(m, p)
		}
		return p, nil
	})
}

// toolMethod runs method with the params build makes from the tool's.
func toolMethod(method string, build func(m obj) (any, error)) tools.Handler {
	return func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
		m, err := decodeObject(params)
		if err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "invalid cron params: %v", err)
		}
		p, err := build(m)
		if err != nil {
			return nil, err
		}
		return callMethod(ctx, env, method, p)
	}
}

func callMethod(ctx context.Context, env *tools.Env, method string, p any) (any, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	out, err := tools.Invoke(ctx, env, tools.Call{Method: method, Args: b})
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	return tools.JSONResult(v)
}

// toolAdd is the add action: job (or, when a model flattened it, the job
// fields at the top level), with the caller's agent and session filled in
// and an announce target inferred from the session key for agent turns.
func toolAdd(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	m, err := decodeObject(params)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid cron params: %v", err)
	}
	job, _ := objOf(m["job"])
	if len(job) == 0 {
		job = obj{}
		if m["schedule"] != nil || m["payload"] != nil || m["message"] != nil || m["text"] != nil {
			for _, k := range flatJobKeys {
				if v, ok := m[k]; ok {
					job[k] = v
				}
			}
		}
	}
	if len(job) == 0 {
		return nil, tools.Errorf(tools.CodeInvalidParams, "job required")
	}
	job = unwrap(job)
	if _, ok := job["agentId"]; !ok && env.Subject.AgentID != "" {
		job["agentId"] = env.Subject.AgentID
	}
	if _, ok := job["sessionKey"]; !ok && env.Subject.SessionKey != "" {
		job["sessionKey"] = env.Subject.SessionKey
	}
	inferDelivery(job, env.Subject.SessionKey)
	return callMethod(ctx, env, "cron.add", job)
}

// inferDelivery gives an agent-turn job without a target the caller's
// conversation as its announce target (spec §1.5, tool side): from
// agent:<id>:<channel>:<marker>:<to…>, marker one of direct, dm, group,
// channel.
func inferDelivery(job obj, sessionKey string) {
	p, _ := objOf(job["payload"])
	kind, _ := p["kind"].(string)
	if p == nil && job["message"] != nil {
		kind = PayloadAgentTurn
	}
	if !strings.EqualFold(kind, PayloadAgentTurn) || sessionKey == "" {
		return
	}
	d, _ := objOf(job["delivery"])
	if d != nil {
		if mode, _ := d["mode"].(string); mode != "" && mode != DeliveryAnnounce {
			return
		}
		if d["channel"] != nil || d["to"] != nil {
			return
		}
	}
	channel, to := targetFromSessionKey(sessionKey)
	if to == "" {
		return
	}
	if d == nil {
		d = obj{}
	}
	d["mode"] = DeliveryAnnounce
	if channel != "" {
		d["channel"] = channel
	}
	d["to"] = to
	job["delivery"] = d
}

func targetFromSessionKey(key string) (channel, to string) {
	if i := strings.Index(key, ":thread:"); i >= 0 {
		key = key[:i]
	}
	parts := strings.Split(key, ":")
	if len(parts) < 3 || parts[0] != "agent" {
		return "", ""
	}
	rest := parts[2:]
	switch rest[0] {
	case "main", "subagent", "acp":
		return "", ""
	}
	for i, p := range rest {
		switch p {
		case "direct", "dm", "group", "channel":
			to = strings.Join(rest[i+1:], ":")
			if i > 0 {
				channel = rest[0]
			}
			return channel, to
		}
	}
	return "", ""
}
