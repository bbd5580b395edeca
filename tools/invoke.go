package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/schemacheck"
)

// Call names one action and its params. Exactly one way of naming is used:
//   - ID: the registry id ("read", "gateway.restart", "health") — the CLI;
//   - Method: a gateway wire method ("health", "tools.invoke") — dispatch;
//   - Tool (+ Verb): an agent tool call ("browser" with Verb, or with
//     "action" inside Args as the original's tools.invoke sends it) —
//     tools.invoke, the agent loop, MCP.
type Call struct {
	ID     string
	Method string
	Tool   string
	Verb   string
	Args   json.RawMessage
	// Value is Args already decoded, when the caller has it (the CLI's
	// params from flags, tools.invoke's args): validation and typed
	// handlers use it instead of parsing Args again. With Value alone,
	// Args is encoded from it for handlers that take bytes.
	Value any
}

// name is what the call asked for, for messages.
func (c Call) name() string {
	switch {
	case c.ID != "":
		return c.ID
	case c.Method != "":
		return c.Method
	case c.Verb != "":
		return c.Tool + "." + c.Verb
	}
	return c.Tool
}

// Final produces the final result of a Deferred action, encoded once.
type Final func(ctx context.Context) (json.RawMessage, error)

// Invoke is the single door through which every front door runs an action:
// look up → role and scope (from the Action) → validate params (all errors,
// with JSON pointers) → tool policy → handler → marshal once. The returned
// bytes are what the CLI prints with --json and what the gateway sends as
// payload. A Deferred result is waited for: Invoke returns the final one.
func Invoke(ctx context.Context, env *Env, call Call) (json.RawMessage, error) {
	return Default.Invoke(ctx, env, call)
}

// InvokeDeferred is Invoke for a front door that can answer twice (the
// gateway): for a Deferred result it returns the encoded Accepted payload
// and the Final to run; otherwise final is nil.
func InvokeDeferred(ctx context.Context, env *Env, call Call) (json.RawMessage, Final, error) {
	return Default.InvokeDeferred(ctx, env, call)
}

// Invoke runs call through this registry (see the package-level Invoke).
func (r *Registry) Invoke(ctx context.Context, env *Env, call Call) (json.RawMessage, error) {
	out, final, err := r.InvokeDeferred(ctx, env, call)
	if err != nil || final == nil {
		return out, err
	}
	return final(ctx)
}

// InvokeDeferred runs call through this registry (see the package-level
// InvokeDeferred).
func (r *Registry) InvokeDeferred(ctx context.Context, env *Env, call Call) (json.RawMessage, Final, error) {
	r.observe(call)
	a, params, value, err := r.resolve(call)
	if err != nil {
		return nil, nil, err
	}
	if env == nil {
		env = &Env{}
	}
	if err := authorize(env.Subject, a); err != nil {
		return nil, nil, err
	}
	return a.invoke(ctx, env, params, value, r)
}

// resolve finds the action a call names and its params.
func (r *Registry) resolve(c Call) (*Action, json.RawMessage, any, error) {
	switch {
	case c.ID != "":
		if a := r.Lookup(c.ID); a != nil {
			return a, c.Args, c.Value, nil
		}
		e := failure.Errorf(CodeUnknownTool, "unknown tool action %q", c.ID)
		if s := r.Suggest(c.ID); len(s) > 0 {
			e.Message += fmt.Sprintf(" (did you mean %s?)", quoteList(s))
			e.Details = map[string]any{"suggestions": s}
		}
		return nil, nil, nil, e
	case c.Method != "":
		if a := r.ByMethod(c.Method); a != nil {
			return a, c.Args, c.Value, nil
		}
		return nil, nil, nil, failure.Errorf(failure.CodeUnknownMethod, "unknown method: %s", c.Method)
	case c.Tool != "":
		return r.resolveAgentCall(c.Tool, c.Verb, c.Args, c.Value)
	}
	return nil, nil, nil, failure.Errorf(CodeUsage, "tools.Invoke: call names no action")
}

// authorize applies the action's own access rules to the caller
// (caller.go): a Subject whose kind and connection disagree is refused;
// one that arrived over a gateway connection (Role set by the gateway from
// the authenticated connection) must have a role in Roles (operators by
// default) unless the action is Open, and operators need Scope (when the
// action declares none: operator.write for agent tools, the scope of
// tools.invoke; operator.admin for gateway methods, as in the original).
// An agent turn carries the scopes of whoever started it (AgentTurn,
// grant.go), so its calls are checked the same way: a turn started by an
// operator.write connection cannot run an operator.admin action, directly
// or through a tool that runs one. Callers in this process that came over
// no connection and run no turn (the local user, an MCP client of `mcp
// serve`) have no scopes to check; tool policy and loop detection still
// apply to them by kind.
func authorize(sub Subject, a *Action) error {
	if err := sub.check(); err != nil {
		return err
	}
	if !sub.ViaGateway() || a.Open {
		return nil
	}
	roles := a.Roles
	if len(roles) == 0 {
		roles = []string{protocol.RoleOperator}
	}
	if !slices.Contains(roles, sub.Role) {
		return failure.Errorf(failure.CodeUnauthorizedRole, "unauthorized role: %s", sub.Role)
	}
	if sub.Role != protocol.RoleOperator {
		return nil
	}
	required := a.RequiredScope()
	if protocol.ScopeSatisfied(sub.Scopes, required) {
		return nil
	}
	return failure.Errorf(failure.CodeMissingScope, "missing scope: %s", required).WithDetails(map[string]any{
		"code": protocol.DetailMissingScope, "missingScope": required, "requiredScopes": []string{required},
	})
}

// RequiredScope is the operator scope a gateway caller needs: Scope, or by
// default operator.write for agent tools and operator.admin for methods.
func (a *Action) RequiredScope() string {
	switch {
	case a.Scope != "":
		return a.Scope
	case a.Tool != "":
		return protocol.ScopeWrite
	}
	return protocol.ScopeAdmin
}

// ScopesFor is what a relaying front door asks the gateway for to make
// this call with params: RequiredScope and the call's own CallScopes.
func (a *Action) ScopesFor(params json.RawMessage) []string {
	scopes := []string{a.RequiredScope()}
	if a.CallScopes == nil {
		return scopes
	}
	for _, s := range a.CallScopes(params) {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return scopes
}

// invoke validates, checks policy, runs the handler and encodes the result.
// The params are decoded once here (unless the caller passed them decoded);
// the schema checks that value and typed handlers are filled from it.
func (a *Action) invoke(ctx context.Context, env *Env, params json.RawMessage, value any, r *Registry) (json.RawMessage, Final, error) {
	switch {
	case value != nil && len(params) == 0:
		b, err := json.Marshal(value) // for handlers that take bytes
		if err != nil {
			return nil, nil, failure.Errorf(CodeInvalidParams, "invalid %s params: %v", a.ID(), err)
		}
		params = b
	case value == nil && (len(params) == 0 || string(params) == "null" || string(params) == "{}"):
		params, value = json.RawMessage(`{}`), map[string]any{}
	case value == nil:
		r.noteDecode(a.ID())
		v, err := schemacheck.DecodeJSON(params)
		if err != nil {
			if _, cerr := a.schema(); cerr != nil {
				return nil, nil, fmt.Errorf("%s: schema: %w", a.ID(), cerr)
			}
			issues := invalidJSON(err)
			return nil, nil, failure.Errorf(CodeInvalidParams, "invalid %s params: %s", a.ID(), FormatIssues(issues)).
				WithDetails(map[string]any{"issues": issues})
		}
		value = v
	}
	issues, err := a.ValidateValue(value)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: schema: %w", a.ID(), err)
	}
	if len(issues) > 0 {
		return nil, nil, failure.Errorf(CodeInvalidParams, "invalid %s params: %s", a.ID(), FormatIssues(issues)).
			WithDetails(map[string]any{"issues": issues})
	}
	if a.Tool != "" {
		if err := checkPolicy(env, a.Tool, r); err != nil {
			return nil, nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, ctxError(err)
	}
	loop := loopGuard(env, a, params) // loopguard.go: agent callers only
	if err := loop.blocked(); err != nil {
		return nil, nil, err
	}
	henv := *env // the handler's env carries the decoded params (Typed)
	henv.in = &callParams{raw: params, value: value, reg: r, id: a.ID()}
	res, err := a.Run(ctx, &henv, params)
	if err != nil {
		err = runError(ctx, err)
		loop.done(nil, err)
		return nil, nil, err
	}
	if d, ok := res.(*Deferred); ok && d != nil {
		acc, err := a.encode(d.Accepted)
		if err != nil {
			return nil, nil, err
		}
		if gjson.GetBytes(acc, "status").String() != "accepted" || d.Final == nil {
			return nil, nil, fmt.Errorf("%s: deferred result needs status \"accepted\" and a Final", a.ID())
		}
		final := func(ctx context.Context) (json.RawMessage, error) {
			res, err := d.Final(ctx)
			if err != nil {
				return nil, runError(ctx, err)
			}
			return a.encode(res)
		}
		return acc, final, nil
	}
	out, err := a.encode(res)
	if err == nil {
		out = loop.done(out, nil)
	}
	return out, nil, err
}

// encode marshals a handler result once (raw JSON passes through).
func (a *Action) encode(res any) (json.RawMessage, error) {
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", a.ID(), err)
	}
	return b, nil
}

// runError types a handler error: a cancelled or expired context wins over
// an untyped error it caused.
func runError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.As(err, new(*Error)) {
		return ctxError(ctx.Err())
	}
	return AsError(err)
}

func ctxError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return failure.Wrap(CodeTimeout, "timed out", err)
	}
	return failure.Wrap(CodeInterrupted, "interrupted", err)
}

func quoteList(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", v)
	}
	return out
}
