package mcpserve_test

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

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
)

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// The gateway's POST /mcp: stateless streamable HTTP behind the gateway
// token, in both eras, with the /tools/invoke deny list.
func TestGatewayHTTP(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(`{agents: {defaults: {workspace: "`+dir+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gatewaytest.Start(t, dir, "sekret", 0)
	endpoint := strings.Replace(g.URL, "ws://", "http://", 1) + "/mcp"

	// Without the bearer: 401, nothing served.
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no bearer: %d, want 401", resp.StatusCode)
	}
	// A wrong bearer: 401 too.
	wrong := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{"nope", http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, wrong, nil); err == nil {
		t.Errorf("a wrong bearer connected")
	}

	for _, era := range eras {
		t.Run(eraName(era), func(t *testing.T) {
			tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{"sekret", http.DefaultTransport}}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			list := names(t, cs)
			if !slices.Contains(list, "memory_search") {
				t.Errorf("list %v", list)
			}
			for _, denied := range []string{"cron", "gateway"} {
				if slices.Contains(list, denied) {
					t.Errorf("HTTP lists %s: %v", denied, list)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# notes\nthe deploy key rotates on fridays\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_get", Arguments: map[string]any{"path": "MEMORY.md"}})
			if err != nil || res.IsError || !strings.Contains(text(res), "fridays") {
				t.Fatalf("memory_get over HTTP: %v %q", err, text(res))
			}
		})
	}
}

// POST /mcp refuses a browser request from a foreign origin (403) and
// serves a same-origin one and one without an Origin; gateway.tools.allow
// takes a tool off the HTTP default deny list and gateway.tools.deny adds
// one, as on the original's /tools/invoke.
func TestGatewayHTTPOriginAndToolsConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := `{agents: {defaults: {workspace: "` + dir + `"}}, gateway: {tools: {allow: ["cron"], deny: ["memory_get"]}}}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	g := gatewaytest.Start(t, dir, "sekret", 0)
	base := strings.Replace(g.URL, "ws://", "http://", 1)
	endpoint := base + "/mcp"

	post := func(origin string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer sekret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("http://evil.example"); got != http.StatusForbidden {
		t.Errorf("foreign Origin: %d, want 403", got)
	}
	if got := post(base); got != http.StatusOK {
		t.Errorf("same Origin: %d, want 200", got)
	}
	if got := post(""); got != http.StatusOK {
		t.Errorf("no Origin: %d, want 200", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{"sekret", http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	list := names(t, cs)
	if !slices.Contains(list, "cron") || !slices.Contains(list, "memory_search") {
		t.Errorf("gateway.tools.allow [cron]: list %v lacks cron or memory_search", list)
	}
	for _, gone := range []string{"memory_get", "gateway", "exec", "sessions_send"} {
		if slices.Contains(list, gone) {
			t.Errorf("list has %s: %v", gone, list)
		}
	}
}

// POST /mcp serves the toolsets of gateway.mcp.toolsets (the file tools
// with "+fs", apply_patch still on the HTTP deny list), and a tool named in
// gateway.tools.allow is served, where before the allow did nothing for a
// tool outside the default set.
func TestGatewayHTTPToolsetsAndAllow(t *testing.T) {
	for _, c := range []struct {
		name, gw     string
		want, absent []string
	}{
		{"default", `{}`, []string{"memory_search"}, []string{"read", "write", "edit", "apply_patch", "exec"}},
		{"toolsets +fs", `{mcp: {toolsets: ["+fs"]}}`, []string{"read", "write", "edit", "memory_search"}, []string{"apply_patch", "exec"}},
		{"allow read", `{tools: {allow: ["read", "no_such_tool"]}}`, []string{"read", "memory_search"}, []string{"write", "edit", "exec"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := `{agents: {defaults: {workspace: "` + dir + `"}}, gateway: ` + c.gw + `}`
			if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("over http\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			g := gatewaytest.Start(t, dir, "sekret", 0)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tr := &mcp.StreamableClientTransport{Endpoint: strings.Replace(g.URL, "ws://", "http://", 1) + "/mcp",
				HTTPClient: &http.Client{Transport: bearer{"sekret", http.DefaultTransport}}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			list := names(t, cs)
			for _, w := range c.want {
				if !slices.Contains(list, w) {
					t.Errorf("gateway %s: %s not listed: %v", c.gw, w, list)
				}
			}
			for _, a := range c.absent {
				if slices.Contains(list, a) {
					t.Errorf("gateway %s: %s listed: %v", c.gw, a, list)
				}
			}
			if slices.Contains(list, "read") {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "notes.txt"}})
				if err != nil || res.IsError || text(res) != "over http\n" {
					t.Fatalf("read over HTTP: %v %q", err, text(res))
				}
			}
		})
	}
}
