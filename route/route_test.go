package route_test

import (
	"context"
	"encoding/json"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/tools"
)

const token = "route-test-token"

// whoami answers who the door saw and counts its runs.
var runs atomic.Int64

func whoami(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
	runs.Add(1)
	s := env.Subject
	return map[string]any{"kind": s.Caller(), "role": s.Role, "scopes": s.Scopes, "agentId": s.AgentID, "sessionKey": s.SessionKey}, nil
}

var (
	gwTool    = &tools.Action{Tool: "zz_route_gw", Where: tools.Gateway, Run: whoami}
	localTool = &tools.Action{Tool: "zz_route_local", Where: tools.Local, Run: whoami}
	adminTool = &tools.Action{Tool: "zz_route_admin", Where: tools.Gateway, Scope: protocol.ScopeAdmin, Run: whoami}
	gwMethod  = &tools.Action{Method: "zz.route.who", Where: tools.Gateway, Scope: protocol.ScopeRead, Run: whoami}
)

func init() {
	for _, a := range []*tools.Action{gwTool, localTool, adminTool, gwMethod} {
		tools.Register(a)
	}
}

// gw is an in-process gateway on a fixed loopback port, so it can be
// stopped and started again where its clients expect it.
type gw = gatewaytest.Gateway

func startGateway(t *testing.T, dir string, port int) *gw {
	t.Helper()
	return gatewaytest.Start(t, dir, token, port)
}

// The done-when test of issue 16 §4: the CLI's one-shot relayed call and an
// MCP-style long-lived session share the routing package. The one-shot
// router dials a connection per call; the kept one makes many calls over
// one client.Session and survives a gateway restart (a call made while the
// gateway is away waits for the reconnect and succeeds). Both decide local
// versus gateway the same way, and a session acting for an agent turn is
// that agent's caller on the gateway, still bounded by its scopes.
func TestOneShotAndKeptShareRouting(t *testing.T) {
	g := startGateway(t, t.TempDir(), 0)
	target := route.Target{URL: g.URL, Token: token, Named: true}
	ctx := context.Background()
	localEnv := func() (*tools.Env, error) { return &tools.Env{Subject: tools.Subject{Kind: tools.CallerUser}}, nil }

	// One-shot, as the CLI: a Gateway action relays, a Local one runs here.
	once := route.New(route.Options{Target: target, Env: localEnv, Client: client.Options{ClientID: "cli", ClientMode: "cli"}})
	out, err := once.Run(ctx, gwTool, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if r := gjson.ParseBytes(out); r.Get("kind").Str != "operator" || r.Get("role").Str != "operator" {
		t.Errorf("relayed tool ran as %s", out)
	}
	if out, err = once.Run(ctx, localTool, map[string]any{}); err != nil || gjson.GetBytes(out, "kind").Str != "user" {
		t.Errorf("local tool: %s %v", out, err)
	}
	if out, err = once.Run(ctx, gwMethod, nil); err != nil || gjson.GetBytes(out, "scopes").Raw != `["operator.read"]` {
		t.Errorf("relayed method asks only its scope: %s %v", out, err)
	}

	// Long-lived, as `openclaw mcp serve`: one session, many calls, made
	// for an agent's session.
	var connects atomic.Int64
	sess := client.Connect(ctx, client.Options{URL: g.URL, Token: token, ClientID: "gateway-client", ClientMode: "backend",
		Scopes: []string{protocol.ScopeRead, protocol.ScopeWrite}}, func(*client.Conn) error { connects.Add(1); return nil })
	defer sess.Close()
	kept := route.New(route.Options{Target: target, Env: localEnv, Conn: route.Kept{Session: sess}, SessionKey: "agent:main:mcp-1"})
	if kept.Relays(localTool) != once.Relays(localTool) || kept.Relays(gwTool) != once.Relays(gwTool) {
		t.Error("the two routers decide differently")
	}
	before := runs.Load()
	for i := 0; i < 20; i++ {
		out, err := kept.Run(ctx, gwTool, map[string]any{})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if r := gjson.ParseBytes(out); r.Get("kind").Str != "agent" || r.Get("sessionKey").Str != "agent:main:mcp-1" ||
			r.Get("agentId").Str != "main" || r.Get("role").Str != "operator" {
			t.Fatalf("kept call ran as %s", out)
		}
	}
	if n := runs.Load() - before; n != 20 || connects.Load() != 1 {
		t.Errorf("20 calls: %d runs over %d connections, want 20 over 1", n, connects.Load())
	}
	// An agent turn relayed by the session keeps the session's scopes.
	if _, err := kept.Run(ctx, adminTool, map[string]any{}); failure.AsError(err).ExitCode() != 3 || failure.AsError(err).Message != "missing scope: operator.admin" {
		t.Errorf("admin tool with read+write: want missing scope (exit 3), got %v (%s)", err, failure.AsError(err).Code)
	}

	// Restart the gateway on the same port. A call made while it is away
	// waits for the reconnect.
	port := g.Port
	g.Stop()
	result := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := kept.Run(cctx, gwTool, map[string]any{})
		if err == nil && gjson.GetBytes(out, "kind").Str != "agent" {
			err = tools.Errorf(tools.CodeFailed, "ran as %s", out)
		}
		result <- err
	}()
	g = startGateway(t, g.Dir, port)
	if err := <-result; err != nil {
		t.Fatalf("call across the restart: %v", err)
	}
	for i := 0; i < 5; i++ {
		if _, err := kept.Run(ctx, gwMethod, nil); err != nil {
			t.Fatalf("after restart, call %d: %v", i, err)
		}
	}
	if n := connects.Load(); n != 2 {
		t.Errorf("connections after a restart: %d, want 2", n)
	}
	if _, err := once.Run(ctx, gwTool, map[string]any{}); err != nil {
		t.Errorf("one-shot after restart: %v", err)
	}
}

// Nothing listening: a relayed call fails UNREACHABLE (exit 5) at once,
// and a local action still runs without a gateway.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rt := route.New(route.Options{Target: route.Target{URL: "ws://" + addr}})
	if _, err := rt.Run(context.Background(), gwTool, nil); tools.AsError(err).Code != tools.CodeUnreachable {
		t.Errorf("want UNREACHABLE, got %v", err)
	}
	if out, err := rt.Run(context.Background(), localTool, json.RawMessage(`{}`)); err != nil || gjson.GetBytes(out, "kind").Str != "user" {
		t.Errorf("local without a gateway: %s %v", out, err)
	}
}

// The decision table: Gateway always relays, Either when a gateway was
// named or Remote is set, Local only with Remote.
func TestRelays(t *testing.T) {
	either := &tools.Action{Tool: "x", Where: tools.Either}
	for _, c := range []struct {
		named, remote       bool
		local, either, gway bool
	}{
		{false, false, false, false, true},
		{true, false, false, true, true},
		{false, true, true, true, true},
		{true, true, true, true, true},
	} {
		rt := route.New(route.Options{Target: route.Target{Named: c.named}, Remote: c.remote})
		if rt.Relays(localTool) != c.local || rt.Relays(either) != c.either || rt.Relays(gwTool) != c.gway {
			t.Errorf("named=%v remote=%v: local %v either %v gateway %v", c.named, c.remote,
				rt.Relays(localTool), rt.Relays(either), rt.Relays(gwTool))
		}
	}
}
