package tools

import (
	"context"
	"encoding/json"
)

// Typed adapts a handler that takes decoded params: the params have passed
// the action's schema when it runs, so it decodes them once into P here
// instead of every handler decoding (or gjson-probing) the bytes again.
//
//	Run: tools.Typed(func(ctx context.Context, env *tools.Env, p readParams) (any, error) { … })
func Typed[P any](run func(ctx context.Context, env *Env, p P) (any, error)) Handler {
	return func(ctx context.Context, env *Env, params json.RawMessage) (any, error) {
		var p P
		if len(params) > 0 && string(params) != "{}" { // the common no-params call costs nothing
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, Errorf(CodeInvalidParams, "invalid params: %v", err)
			}
		}
		return run(ctx, env, p)
	}
}

// AgentFromSessionKey returns the agent id of a session key of the form
// "agent:<id>:<rest>", or "".
func AgentFromSessionKey(key string) string {
	const prefix = "agent:"
	if len(key) <= len(prefix) || key[:len(prefix)] != prefix {
		return ""
	}
	rest := key[len(prefix):]
	for i := 0; i < len(rest); i++ {
		if rest[i] == ':' {
			return rest[:i]
		}
	}
	return ""
}
