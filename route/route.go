// Package route decides where a tool action runs — in this process or on a
// gateway (DESIGN.md "Where an action runs") — and relays it there. Every
// front door that runs actions on behalf of someone shares it: the CLI (one
// call per process, a connection per call: PerCall), `openclaw mcp serve`
// and `openclaw node run` (long-lived, many calls over one kept
// client.Session: Kept). Either way a call goes through the one door:
// tools.Invoke here, the gateway's dispatch there.
package route

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// DefaultRelayTimeout bounds a relayed call when Options.Timeout is 0 (the
// original CLI's default for gateway-backed commands).
const DefaultRelayTimeout = 30 * time.Second

// Options are a Router's settings, plain values (no CLI types).
type Options struct {
	// Target is the gateway relayed calls go to.
	Target Target
	// Remote relays Local actions too (--remote, or a URL typed on the
	// command line).
	Remote bool
	// Timeout bounds each call; 0 means none for a call run here and
	// DefaultRelayTimeout for a relayed one.
	Timeout time.Duration
	// ExpectFinal waits past a relayed call's "accepted" answer for its
	// final result.
	ExpectFinal bool
	// OnAccepted receives a relayed call's "accepted" answer when
	// ExpectFinal is set (the run id events are matched on).
	OnAccepted func(payload json.RawMessage)
	// AgentID and SessionKey name the agent turn relayed tool calls are
	// made for (tools.invoke's agentId / sessionKey): the gateway then
	// treats them as that agent's calls (policy, loop detection).
	AgentID, SessionKey string
	// Env builds the environment of a call that runs here; it is called
	// only then, once per call. nil: an empty Env (the zero Subject, the
	// local user).
	Env func() (*tools.Env, error)
	// Conn carries relayed calls; nil dials a connection per call from
	// Client (PerCall).
	Conn Conn
	// Client is the per-call dial's template (client id, version,
	// OnEvent); URL and credentials come from Target.
	Client client.Options
}

// Router runs actions where Options say.
type Router struct {
	opts Options
	conn Conn
}

// New returns a Router.
func New(o Options) *Router {
	r := &Router{opts: o, conn: o.Conn}
	if r.conn == nil {
		co := o.Client
		co.URL, co.Token, co.Password = o.Target.URL, o.Target.Token, o.Target.Password
		r.conn = PerCall{Options: co}
	}
	return r
}

// Target is where this router relays.
func (r *Router) Target() Target { return r.opts.Target }

// Relays reports whether a runs on the gateway: Gateway actions always,
// Either actions when a gateway was named or Remote is set, Local actions
// only when Remote is set.
func (r *Router) Relays(a *tools.Action) bool {
	switch a.Where {
	case tools.Gateway:
		return true
	case tools.Either:
		return r.opts.Target.Named || r.opts.Remote
	}
	return r.opts.Remote
}

// Run runs a with params (a map as the CLI builds it, or encoded JSON) in
// this process or on the gateway, and returns the result bytes: the same
// bytes either way, so output does not depend on where it ran.
func (r *Router) Run(ctx context.Context, a *tools.Action, params any) (json.RawMessage, error) {
	relay := r.Relays(a)
	ctx, cancel := r.bound(ctx, relay)
	defer cancel()
	if !relay {
		env := &tools.Env{}
		if r.opts.Env != nil {
			e, err := r.opts.Env()
			if err != nil {
				return nil, err
			}
			env = e
		}
		call := tools.Call{ID: a.ID()}
		switch p := params.(type) {
		case json.RawMessage:
			call.Args = p
		case nil:
		default:
			// As built: validated and handed to typed handlers without an
			// encode and a parse in between.
			call.Value = p
		}
		return tools.Invoke(ctx, env, call)
	}
	raw, err := encodeParams(a, params)
	if err != nil {
		return nil, err
	}
	if a.Tool == "" {
		return r.conn.Call(ctx, a.Method, a.ScopesFor(raw), raw, r.callOptions())
	}
	return r.relayTool(ctx, a, raw)
}

// Call sends one gateway method as it is (`openclaw gateway call`,
// health), with the scopes it needs, bounded by Timeout.
func (r *Router) Call(ctx context.Context, method string, scopes []string, params json.RawMessage) (json.RawMessage, error) {
	ctx, cancel := r.bound(ctx, true)
	defer cancel()
	return r.conn.Call(ctx, method, scopes, params, r.callOptions())
}

func (r *Router) bound(ctx context.Context, relay bool) (context.Context, context.CancelFunc) {
	d := r.opts.Timeout
	if d <= 0 && relay {
		d = DefaultRelayTimeout
	}
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

func (r *Router) callOptions() client.CallOptions {
	return client.CallOptions{ExpectFinal: r.opts.ExpectFinal, OnAccepted: r.opts.OnAccepted}
}

// encodeParams is the relayed params once: a multi-action tool's verb goes
// inside them as "action", as the wire's tools.invoke (the original's too)
// takes it.
func encodeParams(a *tools.Action, params any) (json.RawMessage, error) {
	verb := a.Tool != "" && a.Verb != ""
	switch p := params.(type) {
	case nil:
		params = map[string]any{}
	case json.RawMessage:
		if !verb {
			if len(p) == 0 {
				return json.RawMessage(`{}`), nil
			}
			return p, nil
		}
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return nil, failure.Errorf(failure.CodeInvalidParams, "invalid %s params: %v", a.ID(), err)
		}
		params = m
	}
	if m, ok := params.(map[string]any); ok && verb {
		if m == nil {
			m = map[string]any{}
		}
		m["action"] = a.Verb
		params = m
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", a.ID(), err)
	}
	return raw, nil
}

// relayTool runs an agent tool action on the gateway through tools.invoke
// and returns its output bytes unchanged, so a relayed result prints
// byte-identical to a local one; a tool's failure comes back typed as the
// local one would.
func (r *Router) relayTool(ctx context.Context, a *tools.Action, args json.RawMessage) (json.RawMessage, error) {
	name, _ := json.Marshal(a.Tool)
	req := make(json.RawMessage, 0, len(args)+len(name)+20)
	req = append(append(append(append(req, `{"name":`...), name...), `,"args":`...), args...)
	if r.opts.AgentID != "" {
		id, _ := json.Marshal(r.opts.AgentID)
		req = append(append(req, `,"agentId":`...), id...)
	}
	if r.opts.SessionKey != "" {
		key, _ := json.Marshal(r.opts.SessionKey)
		req = append(append(req, `,"sessionKey":`...), key...)
	}
	req = append(req, '}')
	// tools.invoke needs write; the tool itself may need more (gateway
	// config writes need admin).
	scopes := []string{protocol.ScopeWrite}
	for _, s := range a.ScopesFor(args) {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	payload, err := r.conn.Call(ctx, "tools.invoke", scopes, req, r.callOptions())
	if err != nil {
		return nil, err
	}
	res := gjson.ParseBytes(payload)
	if !res.Get("ok").Bool() {
		e := res.Get("error")
		te := &failure.Error{Code: e.Get("code").String(), Message: e.Get("message").String()}
		if te.Code == "" {
			te.Code = failure.CodeFailed
		}
		if te.Message == "" {
			te.Message = "tool failed on the gateway"
		}
		if d := e.Get("details"); d.Exists() && d.Type != gjson.Null {
			te.Details = json.RawMessage(d.Raw)
		}
		return nil, te
	}
	return json.RawMessage(res.Get("output").Raw), nil
}
