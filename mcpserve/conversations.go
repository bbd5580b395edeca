package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// adapter is one of the original `mcp serve`'s conversation tools, served
// under its own name and argument names, that calls an existing registry
// tool (target) through the same Runner (tools.Invoke): no tool of its
// own. It is served only when its target is (the same policy, profile,
// deny and --read-only checks), and the call is checked again as the
// target's at call time.
type adapter struct {
	name, target, description, schema string
	// verb is the target's action the adapter always calls ("" when the
	// target has one); with --read-only the adapter is served only when
	// the target serves that action.
	verb string
	// method marks a target that is a gateway method (tools.ByMethod),
	// not a served tool: such an adapter is served only when a probe of
	// the method through the Runner succeeds (gatewayAdapters).
	method bool
	// result reshapes the target's result into the original's (nil: as is).
	result func(json.RawMessage) (json.RawMessage, error)
	// args maps the adapter's arguments onto the target's.
	args func(json.RawMessage) (json.RawMessage, error)
}

// adapters are the conversation tools that map onto tools on main today.
// Not here: attachments_fetch (no time yet); events_poll and events_wait
// read Config.Events (events.go), not a registry action.
var adapters = []adapter{
	{
		name: "conversations_list", target: "sessions_list",
		description: "List OpenClaw conversations (sessions), newest first; the original's conversations_list over sessions_list.",
		schema: `{"type":"object","properties":{` +
			`"limit":{"type":"integer","minimum":1,"maximum":500,"description":"at most this many (sessions_list caps at 200)"},` +
			`"search":{"type":"string","description":"only conversations whose key, label or name contains this"},` +
			`"includeLastMessage":{"type":"boolean","description":"include each conversation's last message"}},"additionalProperties":false}`,
		args: func(in json.RawMessage) (json.RawMessage, error) {
			out := map[string]any{}
			if l := gjson.GetBytes(in, "limit"); l.Exists() {
				out["limit"] = min(l.Int(), 200)
			}
			if v := gjson.GetBytes(in, "search"); v.Exists() {
				out["search"] = v.String()
			}
			if gjson.GetBytes(in, "includeLastMessage").Bool() {
				out["messageLimit"] = 1
			}
			return json.Marshal(out)
		},
	},
	{
		name: "conversation_get", target: "session_status",
		description: "Get one OpenClaw conversation (session) by session key; the original's conversation_get over session_status.",
		schema:      `{"type":"object","properties":{"session_key":{"type":"string","minLength":1,"description":"session key or sessionId"}},"required":["session_key"],"additionalProperties":false}`,
		args: func(in json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"sessionKey": gjson.GetBytes(in, "session_key").String()})
		},
	},
	{
		name: "messages_read", target: "sessions_history",
		description: "Read recent messages of one OpenClaw conversation (session); the original's messages_read over sessions_history.",
		schema: `{"type":"object","properties":{"session_key":{"type":"string","minLength":1,"description":"session key or sessionId"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"the last N messages (default 20)"}},"required":["session_key"],"additionalProperties":false}`,
		args: func(in json.RawMessage) (json.RawMessage, error) {
			limit := int64(20)
			if l := gjson.GetBytes(in, "limit"); l.Exists() {
				limit = min(l.Int(), 200)
			}
			return json.Marshal(map[string]any{"sessionKey": gjson.GetBytes(in, "session_key").String(), "limit": limit})
		},
	},
	{
		// The message tool's send with sessionKey and no target goes to
		// the session's own conversation (its key's, else the sessions
		// service's DeliveryRoute); a session without a route is refused
		// ("requires a target"), as the original sends on existing routes
		// only.
		name: "messages_send", target: "message", verb: "send",
		description: "Send a text message into an OpenClaw conversation (session) on its own route (the channel and peer it last delivered to); the original's messages_send over message send.",
		schema: `{"type":"object","properties":{"session_key":{"type":"string","minLength":1,"description":"session key of a routed conversation"},` +
			`"text":{"type":"string","minLength":1,"description":"the message text"}},"required":["session_key","text"],"additionalProperties":false}`,
		args: func(in json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"action": "send", "sessionKey": gjson.GetBytes(in, "session_key").String(),
				"message": gjson.GetBytes(in, "text").String()})
		},
	},
	{
		// The gateway's approval queue: listed only when this server's
		// gateway answers exec.approval.list for its credentials (a
		// gateway reached, operator.approvals granted).
		name: "permissions_list_open", target: "exec.approval.list", method: true,
		description: "List open OpenClaw exec approval requests visible through the Gateway; the original's permissions_list_open over exec.approval.list.",
		schema:      `{"type":"object","properties":{},"additionalProperties":false}`,
		args:        func(json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
		result: func(out json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"approvals": json.RawMessage(out)})
		},
	},
	{
		name: "permissions_respond", target: "approval.resolve", method: true,
		description: "Allow or deny one pending OpenClaw exec or plugin approval request; the original's permissions_respond over approval.resolve.",
		schema: `{"type":"object","properties":{"kind":{"type":"string","enum":["exec","plugin"]},"id":{"type":"string","minLength":1},` +
			`"decision":{"type":"string","enum":["allow-once","allow-always","deny"]}},"required":["kind","id","decision"],"additionalProperties":false}`,
		args: func(in json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"kind": gjson.GetBytes(in, "kind").String(), "id": gjson.GetBytes(in, "id").String(),
				"decision": gjson.GetBytes(in, "decision").String()})
		},
		result: func(out json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"result": json.RawMessage(out)})
		},
	},
}

// AdapterNames are the conversation tool names served by adapters.
func AdapterNames() []string {
	var out []string
	for _, a := range adapters {
		out = append(out, a.name)
	}
	return out
}

// withAdapters adds to served each adapter wanted whose target is served
// and whose own name passes deny, sorted by name.
func withAdapters(served []Tool, want map[string]bool, allowed func(string) bool) []Tool {
	for _, a := range adapters {
		if a.method {
			continue // gatewayAdapters
		}
		i := slices.IndexFunc(served, func(t Tool) bool { return t.Name == a.target })
		if !want[a.name] || i < 0 || !allowed(a.name) {
			continue
		}
		target := served[i]
		if a.verb != "" && target.Verbs != nil && !slices.Contains(target.Verbs, a.verb) {
			continue // --read-only: the target does not serve this action
		}
		served = append(served, Tool{
			Name: a.name, Description: a.description, InputSchema: json.RawMessage(a.schema),
			Annotations: target.Annotations, Verbs: target.Verbs, adapter: &a,
		})
	}
	sortTools(served)
	return served
}

func sortTools(served []Tool) {
	slices.SortFunc(served, func(x, y Tool) int {
		switch {
		case x.Name < y.Name:
			return -1
		case x.Name > y.Name:
			return 1
		}
		return 0
	})
}

// gatewayAdapters adds to served the method adapters wanted whose own
// name passes deny (and, with --read-only, whose method is read-only),
// when one probe of exec.approval.list through run succeeds: the Runner
// relays gateway methods to the configured gateway with the method's
// scope, so a probe fails when no gateway answers or the credentials
// lack operator.approvals (and with the in-process Invoke, where the
// approval queue does not exist). Each call is checked again there.
func gatewayAdapters(ctx context.Context, served []Tool, env *tools.Env, o Options, run Runner) []Tool {
	want, err := o.chosen(tools.ToolNames())
	if err != nil {
		return served
	}
	deny := policy.Policy{Deny: append(slices.Clone(o.DefaultDeny), o.Deny...)}
	var add []Tool
	for _, a := range adapters {
		act := tools.ByMethod(a.target)
		if !a.method || !want[a.name] || act == nil || !policy.Matches(deny, a.name) || (o.ReadOnly && !act.ReadOnly) {
			continue
		}
		add = append(add, Tool{Name: a.name, Description: a.description, InputSchema: json.RawMessage(a.schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: act.ReadOnly}, adapter: &a})
	}
	if len(add) == 0 {
		return served
	}
	probe := tools.ByMethod("exec.approval.list")
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, err := run(ctx, env, probe.Method, probe, json.RawMessage(`{}`)); err != nil {
		return served
	}
	served = append(served, add...)
	sortTools(served)
	return served
}

// probeTimeout bounds the approvals probe of a tool-list refresh.
const probeTimeout = 5 * time.Second

// call is the target tool and its arguments for a call of t.
func (t Tool) call(args json.RawMessage) (string, json.RawMessage, error) {
	if t.adapter == nil {
		return t.Name, args, nil
	}
	if err := checkArgs(t, args); err != nil {
		return "", nil, err
	}
	mapped, err := t.adapter.args(args)
	if err != nil {
		return "", nil, fmt.Errorf("%s: mapping arguments: %w", t.Name, err)
	}
	return t.adapter.target, mapped, nil
}

// checkArgs enforces the adapter schema's required keys (the SDK checks
// types against InputSchema; a missing required key must not become an
// empty session key).
func checkArgs(t Tool, args json.RawMessage) error {
	for _, k := range gjson.GetBytes(t.InputSchema, "required").Array() {
		if v := gjson.GetBytes(args, k.String()); !v.Exists() || v.String() == "" {
			return failure.Errorf(failure.CodeUsage, "%s: %s is required", t.Name, k.String())
		}
	}
	return nil
}
