package cron

import (
	"context"
	"encoding/json"
	"strings"

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

// toolSchema is the Classic tool schema: one flat object (providers
// reject root unions), requirements per action checked at run time; add
// also takes the job's fields at the top level.
const toolSchema = `{"type":"object","properties":{
	"action":{"type":"string","enum":["status","list","add","update","remove","run","runs","wake"],"description":"what to do"},
	` + toolCommon + `,
	"includeDisabled":{"type":"boolean","description":"list: include disabled jobs"},
	"job":{"type":"object","description":"add: the job {name, schedule, sessionTarget, wakeMode, payload, delivery?}","additionalProperties":true},
	"jobId":{"type":"string","description":"update/remove/run/runs: the job id (canonical)"},
	"id":{"type":"string","description":"compatibility alias of jobId"},
	"patch":{"type":"object","description":"update: the fields to change","additionalProperties":true},
	"text":{"type":"string","description":"wake: the system event text"},
	"mode":{"type":"string","enum":["now","next-heartbeat"],"description":"wake: when the main session sees it (default next-heartbeat)"},
	"runMode":{"type":"string","enum":["due","force"],"description":"run: force (default) or due (only if due)"},
	"contextMessages":{"type":"number","minimum":0,"maximum":10,"description":"add: recent messages to append to a systemEvent text"}
},"required":["action"]}`

const toolDescription = `Manage scheduled jobs on the gateway (cron). Actions: status; list (includeDisabled); ` +
	`add (job); update (jobId, patch); remove (jobId); run (jobId, runMode); runs (jobId); wake (text, mode). ` +
	`A job is {name, schedule, sessionTarget, wakeMode, payload, delivery?}. ` +
	`schedule: {kind:"at", at:ISO time} (one-shot; ISO times without an explicit timezone are treated as UTC) | ` +
	`{kind:"every", everyMs} | {kind:"cron", expr, tz} (expr is wall time in tz: never convert it to UTC). ` +
	`sessionTarget "main" requires payload {kind:"systemEvent", text} (queued for the main session); ` +
	`"isolated" requires payload {kind:"agentTurn", message} (a fresh agent turn, delivered by announce by default). ` +
	`wakeMode "now" or "next-heartbeat". Use jobId as the canonical identifier; id is accepted for compatibility.`

func init() {
	tools.Register(&tools.Action{Tool: "cron", Summary: "Manage scheduled jobs (cron)", Description: toolDescription,
		Where: tools.Gateway, Schema: toolSchema, Run: toolRun,
		Destructive: true}) // one action for status…remove: the worst of them
}

// toolRun dispatches on action, as the original's tool does.
func toolRun(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	m, err := decodeObject(params)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid cron params: %v", err)
	}
	action, _ := str(m, "action")
	byID := func(method string, more func(p map[string]any)) (any, error) {
		id, err := toolJobID(m)
		if err != nil {
			return nil, err
		}
		p := map[string]any{"id": id}
		if more != nil {
			more(p)
		}
		return callMethod(ctx, env, method, p)
	}
	switch action {
	case "status":
		return callMethod(ctx, env, "cron.status", map[string]any{})
	case "list":
		p := map[string]any{}
		if b, ok := m["includeDisabled"].(bool); ok {
			p["includeDisabled"] = b
		}
		return callMethod(ctx, env, "cron.list", p)
	case "add":
		return toolAdd(ctx, env, m)
	case "update":
		id, err := toolJobID(m)
		if err != nil {
			return nil, err
		}
		patch, ok := objOf(m["patch"])
		if !ok {
			return nil, tools.Errorf(tools.CodeInvalidParams, "patch required")
		}
		return callMethod(ctx, env, "cron.update", map[string]any{"id": id, "patch": patch})
	case "remove":
		return byID("cron.remove", nil)
	case "run":
		return byID("cron.run", func(p map[string]any) {
			p["mode"] = "force"
			if s, ok := str(m, "runMode"); ok {
				p["mode"] = s
			}
		})
	case "runs":
		return byID("cron.runs", nil)
	case "wake":
		text, ok := str(m, "text")
		if !ok {
			return nil, tools.Errorf(tools.CodeInvalidParams, "text required")
		}
		mode, ok := str(m, "mode")
		if !ok {
			mode = WakeNextHeartbeat
		}
		return callMethod(ctx, env, "wake", map[string]any{"text": text, "mode": mode})
	}
	return nil, tools.Errorf(tools.CodeInvalidParams, "Unknown action: %s", action)
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
func toolAdd(ctx context.Context, env *tools.Env, m obj) (any, error) {
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
