package route

import (
	"context"
	"encoding/json"

	"github.com/openclaw-go/openclaw/client"
)

// Conn carries relayed calls to a gateway. scopes are what the call needs:
// a connection dialed for the call asks for exactly those; a kept one
// already has the scopes it connected with.
type Conn interface {
	Call(ctx context.Context, method string, scopes []string, params json.RawMessage, o client.CallOptions) (json.RawMessage, error)
}

// PerCall dials a fresh connection for each call and closes it after: a
// process that makes one call (the CLI) pays for no more than it uses.
// Options is the dial's template (URL and credentials, client id, OnEvent);
// Scopes are set per call.
type PerCall struct {
	Options client.Options
}

// Call dials, calls and, before closing, hands OnEvent every event that
// arrived before the answer (the call's progress).
func (p PerCall) Call(ctx context.Context, method string, scopes []string, params json.RawMessage, o client.CallOptions) (json.RawMessage, error) {
	opts := p.Options
	opts.Scopes = scopes
	conn, err := client.Dial(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	res, err := conn.CallWith(ctx, method, params, o)
	_ = conn.SyncEvents(ctx)
	return res, err
}

// Kept makes every call on one client.Session, which keeps a connection up
// and reconnects with backoff: a long-lived process (`openclaw mcp serve`,
// `openclaw node run`) makes many calls over one socket. A call waits for a
// connection while the gateway is away (bounded by its ctx); a call under
// way when the connection drops fails and is not replayed.
type Kept struct {
	Session *client.Session
}

// Call waits for the session's connection and calls on it.
func (k Kept) Call(ctx context.Context, method string, _ []string, params json.RawMessage, o client.CallOptions) (json.RawMessage, error) {
	return k.Session.CallWith(ctx, method, params, o)
}
