package gateway

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
	_ "github.com/openclaw-go/openclaw/tools/all" // the binary's tool families, the gateway tool among them
)

// toolCall runs the `gateway` agent tool through tools.invoke, as an agent would.
func toolCall(t *testing.T, c *tclient, args map[string]any) map[string]any {
	t.Helper()
	res := c.call("tools.invoke", map[string]any{"name": "gateway", "args": args})
	if !res.OK {
		t.Fatalf("tools.invoke gateway %v: %+v", args["action"], res.Error)
	}
	return decode[map[string]any](t, res.Payload)
}

func TestGatewayToolConfig(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {profile: "full", web: {search: {apiKey: "sk-secret"}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})
	c := dialConnected(t, ts.url)

	// config.get narrowed by path, secrets redacted.
	got := toolCall(t, c, map[string]any{"action": "config.get", "path": "tools.web"})
	out := got["output"].(map[string]any)
	if out["path"] != "tools.web" || out["hash"] == "" {
		t.Fatalf("config.get path: %v", out)
	}
	if strings.Contains(mustMarshal(t, out), "sk-secret") {
		t.Fatalf("secret leaked: %v", out)
	}
	miss := toolCall(t, c, map[string]any{"action": "config.get", "path": "tools.nope"})
	if miss["ok"] != false || !strings.Contains(mustMarshal(t, miss["error"]), "config path not found: tools.nope") {
		t.Fatalf("missing path: %v", miss)
	}

	// config.patch without baseHash: the tool fills it from a fresh read, and
	// the result carries no config echo.
	patch := toolCall(t, c, map[string]any{"action": "config.patch", "raw": `{tools: {deny: ["exec"]}}`, "note": "no exec"})
	po := patch["output"].(map[string]any)
	if po["ok"] != true {
		t.Fatalf("patch: %v", patch)
	}
	if _, echo := po["config"]; echo {
		t.Errorf("patch result echoes the config")
	}
	raw, _ := os.ReadFile(cfgPath)
	if !strings.Contains(string(raw), `"exec"`) || !strings.Contains(string(raw), "sk-secret") {
		t.Fatalf("file after patch lost data or the change: %s", raw)
	}

	// schema lookup: found and not found (as data, not an error).
	look := toolCall(t, c, map[string]any{"action": "config.schema.lookup", "path": "gateway.auth"})
	if !strings.Contains(mustMarshal(t, look["output"]), `"children"`) {
		t.Fatalf("lookup: %v", look)
	}
	nf := toolCall(t, c, map[string]any{"action": "config.schema.lookup", "path": "no.such.key"})
	if nf["output"].(map[string]any)["code"] != "schema_path_not_found" {
		t.Fatalf("lookup miss: %v", nf)
	}

	// update.run never pretends to update.
	up := toolCall(t, c, map[string]any{"action": "update.run"})
	defer func() {
		// Policy applies to the tool itself: a profile without it removes it.
		toolCall(t, c, map[string]any{"action": "config.patch", "raw": `{tools: {profile: "coding"}}`})
		den := toolCall(t, c, map[string]any{"action": "config.get"})
		if den["ok"] != false || den["error"].(map[string]any)["code"] != "DENIED" {
			t.Errorf("gateway tool under the coding profile: %v", den)
		}
	}()
	ue, _ := up["error"].(map[string]any)
	ud, _ := ue["details"].(map[string]any)
	if up["ok"] != false || ue["code"] != "FAILED" || ud["status"] != "skipped" || ud["version"] != "test" {
		t.Fatalf("update.run must fail (it never updates): %v", up)
	}
}

func TestGatewayToolRestart(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})
	c := dialConnected(t, ts.url)

	// delayMs is clamped; a second request coalesces onto the pending one.
	first := toolCall(t, c, map[string]any{"action": "restart", "delayMs": 999999, "reason": "test"})
	fo := first["output"].(map[string]any)
	if fo["ok"] != true || fo["delayMs"] != float64(60000) || fo["coalesced"] != false {
		t.Fatalf("restart: %v", fo)
	}
	second := toolCall(t, c, map[string]any{"action": "restart"})
	if second["output"].(map[string]any)["coalesced"] != true {
		t.Fatalf("second restart not coalesced: %v", second)
	}
	ts.s.restart.stop()

	// A restart that fires reloads in place: the connection survives.
	ts.s.restart.mu.Lock()
	ts.s.restart.last = time.Time{}
	ts.s.restart.mu.Unlock()
	toolCall(t, c, map[string]any{"action": "restart", "delayMs": 0})
	waitFor(t, 10*time.Second, func() bool { // the scheduled restart fired
		ts.s.restart.mu.Lock()
		defer ts.s.restart.mu.Unlock()
		return ts.s.restart.timer == nil
	})
	if h := c.call("health", nil); !h.OK {
		t.Fatalf("connection lost across restart: %+v", h.Error)
	}

	// commands.restart=false disables it.
	writeFile(t, cfgPath, `{commands: {restart: false}}`)
	if err := ts.s.Reload(); err != nil {
		t.Fatal(err)
	}
	off := toolCall(t, c, map[string]any{"action": "restart"})
	if off["ok"] != false || !strings.Contains(mustMarshal(t, off["error"]), "Gateway restart is disabled (commands.restart=false).") {
		t.Fatalf("disabled restart: %v", off)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
