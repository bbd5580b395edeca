package gateway

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// bearerRT adds a bearer token to every request.
type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// mcpInitialize POSTs an MCP initialize to /mcp with token as the bearer
// and returns the status.
func mcpInitialize(t *testing.T, ts *testServer, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.http+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// POST /mcp runs tools as the caller: a paired device's token needs
// operator.write there (issue 30 item 17). A read-only device is refused
// 403, a write device is served; neither lowering the route's scope to
// read nor raising it to admin goes unnoticed.
func TestMCPRouteNeedsOperatorWrite(t *testing.T) {
	ts := startServer(t, Options{})
	reader, writer := newDeviceKey(t), newDeviceKey(t)
	readTok := pairDevice(t, ts.url, reader, []string{protocol.ScopeRead})
	writeTok := pairDevice(t, ts.url, writer, []string{protocol.ScopeRead, protocol.ScopeWrite})
	if got := mcpInitialize(t, ts, readTok); got != http.StatusForbidden {
		t.Errorf("operator.read device token: %d, want 403", got)
	}
	if got := mcpInitialize(t, ts, writeTok); got != http.StatusOK {
		t.Errorf("operator.write device token: %d, want 200", got)
	}
}

// The HTTP door's default deny list (the original's POST /tools/invoke
// list) keeps nodes and sessions_spawn off POST /mcp: neither is listed nor
// callable. gateway.tools.allow lifts them, which shows the deny list (and
// not the toolset) is what keeps them out (issue 30 item 17).
func TestMCPRouteDeniesNodesAndSessionsSpawn(t *testing.T) {
	denied := []string{"nodes", "sessions_spawn"}
	for _, c := range []struct {
		name, cfg string
		listed    bool
	}{{"default", `{}`, false}, {"allowed", `{gateway: {tools: {allow: ["nodes", "sessions_spawn"]}}}`, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfgPath := filepath.Join(dir, "openclaw.json")
			if err := os.WriteFile(cfgPath, []byte(c.cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			tr := &mcp.StreamableClientTransport{Endpoint: ts.http + "/mcp", HTTPClient: &http.Client{Transport: bearerRT(testToken)}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var list []string
			for _, tool := range res.Tools {
				list = append(list, tool.Name)
			}
			for _, name := range denied {
				if slices.Contains(list, name) != c.listed {
					t.Errorf("%s listed %v, want %v: %v", name, !c.listed, c.listed, list)
				}
				if c.listed {
					continue
				}
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"action": "list"}})
				if err == nil && !r.IsError {
					t.Errorf("calling %s over POST /mcp ran it", name)
				}
			}
		})
	}
}
