// Package client is the OpenClaw Gateway WebSocket client (protocol v4,
// spec/gateway-protocol.md): Dial waits for connect.challenge, sends connect
// (optionally signed with an Ed25519 device Identity) and returns a Conn once
// hello-ok arrives. Conn multiplexes concurrent Calls on one socket (responses
// may arrive out of order) and hands events to Options.OnEvent in order.
// Session keeps a connection up with exponential backoff for long-lived users
// (node host, logs --follow, and route.Kept: `openclaw mcp serve` relaying
// many calls over one socket).
//
// # Errors
//
// Every error returned by this package is either a *failure.Error (so
// failure.AsError and ExitCode give the CLI's exit code directly) or a
// *CallError that converts itself into one through errors.As:
//
//   - Dial: *failure.Error. CodeUnreachable (exit 5) when nothing listens,
//     CodeAuth (exit 4) for an auth/pairing/device-identity rejection,
//     CodeTimeout (exit 124) for a deadline, CodeInterrupted (exit 130) when
//     the caller's context is cancelled, CodeFailed otherwise (close before
//     hello, protocol mismatch, bad challenge). A rejected connect wraps the
//     gateway's error as a *CallError (errors.As finds it).
//   - Conn.Call: *CallError when the gateway answered ok:false; it keeps the
//     gateway's own code (INVALID_REQUEST, FORBIDDEN, …), message and details
//     for `gateway call --json`, and errors.As(err, &toolErr) yields the
//     mapped *failure.Error (see CallError.ToolError). Transport failures are
//     *failure.Error: a close mid-call is `gateway closed (<code>): <reason>`
//     wrapping a *CloseError (CodeAuth for 4001 and auth-related 1008
//     closes, else CodeFailed); ctx expiry CodeTimeout; cancellation
//     CodeInterrupted; a call after Close wraps ErrClosed.
package client
