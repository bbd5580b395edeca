package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openclaw-go/openclaw/failure"
)

// Invoke is the single door through which every front door runs an action:
// look up → validate params (all errors, with JSON pointers) → tool policy →
// handler → marshal once. The returned bytes are what the CLI prints with
// --json and what the gateway sends as payload.
func Invoke(ctx context.Context, env *Env, id string, params json.RawMessage) (json.RawMessage, error) {
	a := Lookup(id)
	if a == nil {
		e := Errorf(CodeUnknownTool, "unknown tool action %q", id)
		if s := Suggest(id); len(s) > 0 {
			e.Message += fmt.Sprintf(" (did you mean %s?)", quoteList(s))
			e.Details = map[string]any{"suggestions": s}
		}
		return nil, e
	}
	return a.Invoke(ctx, env, params)
}

// Invoke runs this action (see the package-level Invoke).
func (a *Action) Invoke(ctx context.Context, env *Env, params json.RawMessage) (json.RawMessage, error) {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{}`)
	}
	issues, err := a.Validate(params)
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %w", a.ID(), err)
	}
	if len(issues) > 0 {
		return nil, (&Error{Code: CodeInvalidParams,
			Message: fmt.Sprintf("invalid %s params: %s", a.ID(), FormatIssues(issues))}).
			WithDetails(map[string]any{"issues": issues})
	}
	if a.Tool != "" {
		if err := CheckPolicy(env, a.Tool); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	res, err := a.Run(ctx, env, params)
	if err != nil {
		if ctx.Err() != nil && !errors.As(err, new(*Error)) {
			return nil, ctxError(ctx.Err())
		}
		return nil, AsError(err)
	}
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", a.ID(), err)
	}
	return b, nil
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
