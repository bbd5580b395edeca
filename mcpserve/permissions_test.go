package mcpserve_test

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/gateway/gatewaytest"
)

// permissions_list_open and permissions_respond are the gateway's
// exec.approval.list and approval.resolve: the real binary over stdio,
// relaying to a real gateway, lists the pending request another CLI
// raised ({approvals:[…]}) and resolves it, and that CLI's waiting call
// gets the decision. They are not listed when the gateway refuses the
// credentials or none answers.
func TestStdioPermissionsAdapters(t *testing.T) {
	h := newHome(t)
	h.writeConfig(t, `{agents: {defaults: {workspace: "`+h.ws+`"}}}`)
	g := gatewaytest.Start(t, h.state, "sekret", 0)
	gw := func(url, token string, args ...string) *mcp.ClientSession {
		return stdioSession(t, h, gatewayEnv(url, token), args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A pending request: the real CLI waits on it until it is decided.
	var reqOut bytes.Buffer
	req := exec.CommandContext(ctx, bin, "gateway", "call", "exec.approval.request", "--url", g.URL, "--token", "sekret",
		"--timeout", "60s", "--json", "--params", `{"command":"make deploy","timeoutMs":60000}`)
	req.Env = h.cmd().Env
	req.Stdout, req.Stderr = &reqOut, &reqOut
	if err := req.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = req.Process.Kill(); _ = req.Wait() })

	cs := gw(g.URL, "sekret", "--toolsets", "conversations")
	list := names(t, cs)
	for _, want := range []string{"permissions_list_open", "permissions_respond"} {
		if !slices.Contains(list, want) {
			t.Fatalf("list lacks %s: %v", want, list)
		}
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	var id string
	for id == "" { // until the request has reached the queue (ctx bounds it)
		res := call("permissions_list_open", map[string]any{})
		if res.IsError || !gjson.Get(text(res), "approvals").IsArray() {
			t.Fatalf("permissions_list_open: %q", text(res))
		}
		for _, a := range gjson.Get(text(res), "approvals").Array() {
			if strings.Contains(a.Raw, "make deploy") {
				id = a.Get("id").String()
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the request never appeared")
		}
	}
	if res := call("permissions_respond", map[string]any{"kind": "exec", "id": id}); !res.IsError || !strings.Contains(text(res), "decision is required") {
		t.Errorf("respond without decision: %q", text(res))
	}
	res := call("permissions_respond", map[string]any{"kind": "exec", "id": id, "decision": "allow-once"})
	if res.IsError || !gjson.Get(text(res), "result.applied").Bool() {
		t.Fatalf("permissions_respond: %q", text(res))
	}
	if err := req.Wait(); err != nil || !strings.Contains(reqOut.String(), "allow-once") {
		t.Errorf("the waiting request: %v %s", err, reqOut.String())
	}
	if res := call("permissions_list_open", map[string]any{}); strings.Contains(text(res), "make deploy") {
		t.Errorf("resolved request still open: %q", text(res))
	}
	if res := call("permissions_respond", map[string]any{"kind": "plugin", "id": id, "decision": "deny"}); !res.IsError {
		t.Errorf("respond to a plugin approval that does not exist: %q", text(res))
	}

	for _, c := range []struct{ url, token string }{{g.URL, "wrong"}, {"ws://127.0.0.1:19651", "sekret"}} {
		if list := names(t, gw(c.url, c.token, "--toolsets", "conversations")); slices.Contains(list, "permissions_list_open") || slices.Contains(list, "permissions_respond") {
			t.Errorf("gateway %s token %s: lists the permissions tools: %v", c.url, c.token, list)
		}
	}
	if list := names(t, gw(g.URL, "sekret", "--toolsets", "conversations", "--read-only")); slices.Contains(list, "permissions_respond") {
		t.Errorf("--read-only lists permissions_respond: %v", list)
	}
	if list := names(t, gw(g.URL, "sekret", "--toolsets", "conversations", "--deny", "permissions_respond")); slices.Contains(list, "permissions_respond") || !slices.Contains(list, "permissions_list_open") {
		t.Errorf("--deny permissions_respond: %v", list)
	}
}
