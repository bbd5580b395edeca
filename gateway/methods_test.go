package gateway

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

func TestConfigGetPatchCAS(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{
  // JSON5 with a secret
  gateway: { auth: { token: "s3cret-config-token" } },
  tools: { deny: ["exec", "process"] },
  models: { providers: { local: { apiKey: "sk-12345", models: [{ id: "m1", contextWindow: 8192 }] } } },
}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, Token: testToken})
	c := dialConnected(t, ts.url)

	get := c.call("config.get", nil)
	if !get.OK {
		t.Fatalf("config.get: %+v", get.Error)
	}
	snap := decode[map[string]any](t, get.Payload)
	raw, _ := os.ReadFile(cfgPath)
	if snap["hash"] != config.HashRaw(raw) || snap["exists"] != true || snap["valid"] != true || snap["path"] != cfgPath {
		t.Errorf("config.get = hash %v exists %v valid %v path %v", snap["hash"], snap["exists"], snap["valid"], snap["path"])
	}
	if strings.Contains(string(get.Payload), "s3cret-config-token") || strings.Contains(string(get.Payload), "sk-12345") {
		t.Errorf("config.get leaks a secret: %s", get.Payload)
	}
	if !strings.Contains(snap["raw"].(string), `token: "__OPENCLAW_REDACTED__"`) {
		t.Errorf("raw not redacted: %s", snap["raw"])
	}
	cfgOut := snap["config"].(map[string]any)
	if cfgOut["gateway"].(map[string]any)["auth"].(map[string]any)["token"] != redactedSentinel {
		t.Errorf("config.gateway.auth.token = %v", cfgOut["gateway"])
	}
	for _, k := range []string{"parsed", "sourceConfig", "resolved", "runtimeConfig", "issues", "warnings", "legacyIssues", "configRevisionHash", "appliedConfigHash"} {
		if _, ok := snap[k]; !ok {
			t.Errorf("config.get lacks %s", k)
		}
	}
	base := snap["hash"].(string)

	// Patch with the hash: merge, null deletes, array needs replacePaths.
	patch := c.call("config.patch", map[string]any{"raw": `{tools: {deny: null, profile: "coding"}}`, "baseHash": base})
	if !patch.OK {
		t.Fatalf("config.patch: %+v", patch.Error)
	}
	res := decode[map[string]any](t, patch.Payload)
	changed, _ := res["changedPaths"].([]any)
	if res["ok"] != true || !slices.Contains(changed, any("tools.deny")) || !slices.Contains(changed, any("tools.profile")) {
		t.Errorf("patch result %s", patch.Payload)
	}
	ev := c.nextEvent(t, "config.changed", 2*time.Second)
	evp := decode[map[string]any](t, ev.Payload)
	newRaw, _ := os.ReadFile(cfgPath)
	if evp["path"] != cfgPath || evp["hash"] != config.HashRaw(newRaw) || res["hash"] != evp["hash"] {
		t.Errorf("config.changed %s (file hash %s)", ev.Payload, config.HashRaw(newRaw))
	}
	if strings.Contains(string(newRaw), `"deny"`) || !strings.Contains(string(newRaw), `"profile": "coding"`) ||
		!strings.Contains(string(newRaw), "s3cret-config-token") {
		t.Errorf("written config:\n%s", newRaw)
	}
	if bak, err := os.ReadFile(cfgPath + ".bak"); err != nil || string(bak) != string(raw) {
		t.Errorf(".bak: %v", err)
	}
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("running config not updated")
	}

	// The old hash is stale now.
	stale := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "full"}}`, "baseHash": base})
	if stale.OK || stale.Error.Code != "INVALID_REQUEST" || stale.Error.Message != "config changed since last load; re-run config.get and retry" {
		t.Errorf("stale patch: %+v", stale.Error)
	}
	// set needs a hash when the file exists.
	set := c.call("config.set", map[string]any{"raw": `{}`})
	if set.OK || set.Error.Message != "config base hash required; re-run config.get and retry" {
		t.Errorf("hashless set: %+v", set.Error)
	}
	// Invalid documents are refused and leave the file alone.
	cur := config.HashRaw(newRaw)
	bad := c.call("config.patch", map[string]any{"raw": `{gateway: {bind: 42}}`, "baseHash": cur})
	if bad.OK || bad.Error.Code != "INVALID_REQUEST" || !strings.HasPrefix(bad.Error.Message, "invalid config: gateway.bind") {
		t.Errorf("invalid patch: %+v", bad.Error)
	}
	// A guarded path needs the hash even on patch.
	g := c.call("config.patch", map[string]any{"raw": `{gateway: {bind: "lan"}}`})
	if g.OK || !strings.HasPrefix(g.Error.Message, "config base hash required for gateway.bind") {
		t.Errorf("guarded patch: %+v", g.Error)
	}
	// Shrinking an array needs replacePaths.
	arr := c.call("config.patch", map[string]any{"raw": `{models: {providers: {local: {models: []}}}}`, "baseHash": cur})
	if arr.OK || !strings.Contains(arr.Error.Message, "replacePaths") {
		t.Errorf("array patch: %+v", arr.Error)
	}
	arr = c.call("config.patch", map[string]any{"raw": `{models: {providers: {local: {models: []}}}}`, "baseHash": cur,
		"replacePaths": []string{"models.providers.*.models"}})
	if !arr.OK {
		t.Errorf("array patch with replacePaths: %+v", arr.Error)
	}
	// A config.get → config.set round trip keeps redacted secrets.
	snap = decode[map[string]any](t, c.call("config.get", nil).Payload)
	setOK := c.call("config.set", map[string]any{"raw": snap["raw"], "baseHash": snap["hash"]})
	if !setOK.OK {
		t.Fatalf("round-trip set: %+v", setOK.Error)
	}
	after, _ := os.ReadFile(cfgPath)
	if !strings.Contains(string(after), "s3cret-config-token") || strings.Contains(string(after), redactedSentinel) {
		t.Errorf("round trip lost the secret:\n%s", after)
	}
	// apply replaces the document and reports the restart plan.
	cur = config.HashRaw(after)
	ap := c.call("config.apply", map[string]any{"raw": `{gateway: {auth: {token: "__OPENCLAW_REDACTED__"}}, tools: {profile: "coding"}}`,
		"baseHash": cur, "note": "test"})
	if !ap.OK || !strings.Contains(string(ap.Payload), `"restart":{"mode":"hot-reload","scheduled":false}`) {
		t.Fatalf("config.apply: %s %+v", ap.Payload, ap.Error)
	}
	after, _ = os.ReadFile(cfgPath)
	// No-op patch.
	cur = config.HashRaw(after)
	noop := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "coding"}}`, "baseHash": cur})
	if !noop.OK || decode[map[string]any](t, noop.Payload)["noop"] != true {
		t.Errorf("noop: %s %+v", noop.Payload, noop.Error)
	}
	// Read-only callers cannot write.
	r := dialConnected(t, ts.url, readScopes)
	if f := r.call("config.get", nil); !f.OK {
		t.Errorf("reader config.get: %+v", f.Error)
	}
}

func TestConfigSchemaMethods(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	s := c.call("config.schema", nil)
	if !s.OK || !strings.Contains(string(s.Payload), `"schema":{`) {
		t.Errorf("config.schema: %.200s %+v", s.Payload, s.Error)
	}
	l := c.call("config.schema.lookup", map[string]any{"path": "gateway.auth"})
	if !l.OK || decode[map[string]any](t, l.Payload)["path"] != "gateway.auth" {
		t.Errorf("lookup: %s %+v", l.Payload, l.Error)
	}
	nf := c.call("config.schema.lookup", map[string]any{"path": "nope.nothing"})
	if nf.OK || nf.Error.Code != "INVALID_REQUEST" || nf.Error.Message != "config schema path not found" {
		t.Errorf("lookup miss: %+v", nf.Error)
	}
}

func TestConfigHotReload(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {profile: "full"}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 20 * time.Millisecond})
	c := dialConnected(t, ts.url)

	writeFile(t, cfgPath, `{tools: {profile: "coding"}}`)
	ev := c.nextEvent(t, "config.changed", 3*time.Second)
	if h := decode[map[string]any](t, ev.Payload)["hash"]; h != config.HashRaw([]byte(`{tools: {profile: "coding"}}`)) {
		t.Errorf("hash %v", h)
	}
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("config not reloaded")
	}
	// An invalid file keeps the last good config and says why in the log.
	writeFile(t, cfgPath, `{tools: {profile: 12}} `)
	waitFor(t, 3*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "logs", "gateway.log"))
		return strings.Contains(string(b), "keeping the last good config")
	})
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("invalid file replaced the config")
	}
	writeFile(t, cfgPath, `{tools: {profile: "minimal"`)
	if err := ts.s.Reload(); err == nil {
		t.Errorf("Reload of a broken file succeeded")
	}
	writeFile(t, cfgPath, `{tools: {profile: "messaging"}}`)
	if err := ts.s.Reload(); err != nil || ts.s.Config().String("tools.profile", "") != "messaging" {
		t.Errorf("Reload: %v", err)
	}
	// Connections survive reloads.
	if f := c.call("health", nil); !f.OK {
		t.Errorf("health after reload: %+v", f.Error)
	}
}

func TestScheduleRestart(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	c := dialConnected(t, ts.url)
	writeFile(t, cfgPath, `{tools: {profile: "coding"}}`)
	if err := ts.s.ScheduleRestart(10*time.Millisecond, "test"); err != nil {
		t.Fatal(err)
	}
	c.nextEvent(t, "config.changed", 2*time.Second)
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("restart did not reload")
	}
	if err := ts.s.ScheduleRestart(0, "again"); err == nil || !strings.Contains(err.Error(), "cooldown") {
		t.Errorf("second restart: %v", err)
	}
	writeFile(t, cfgPath, `{commands: {restart: false}}`)
	_ = ts.s.Reload()
	if err := ts.s.ScheduleRestart(0, "off"); err == nil || !strings.Contains(err.Error(), "commands.restart=false") {
		t.Errorf("restart disabled: %v", err)
	}
	if f := c.call("health", nil); !f.OK {
		t.Errorf("connection lost: %+v", f.Error)
	}
}

func TestLogsTail(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	f := c.call("logs.tail", nil)
	if !f.OK {
		t.Fatalf("logs.tail: %+v", f.Error)
	}
	res := decode[logsTailResult](t, f.Payload)
	if res.File != filepath.Join(ts.dir, "logs", "gateway.log") || len(res.Lines) == 0 || res.Cursor != res.Size {
		t.Fatalf("logs.tail = %+v", res)
	}
	if !strings.Contains(strings.Join(res.Lines, "\n"), "listening on ws://") {
		t.Errorf("no listening line: %q", res.Lines)
	}
	ts.s.log.Infof("marker line for the tail test")
	next := decode[logsTailResult](t, c.call("logs.tail", map[string]any{"cursor": res.Cursor}).Payload)
	if len(next.Lines) != 1 || !strings.HasSuffix(next.Lines[0], "marker line for the tail test") || next.Reset {
		t.Errorf("follow = %+v", next)
	}
	reset := decode[logsTailResult](t, c.call("logs.tail", map[string]any{"cursor": next.Cursor + 1000, "limit": 1}).Payload)
	if !reset.Reset || len(reset.Lines) != 1 {
		t.Errorf("reset = %+v", reset)
	}
}

func TestToolsMethods(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	cat := c.call("tools.catalog", nil)
	if !cat.OK {
		t.Fatalf("tools.catalog: %+v", cat.Error)
	}
	var catalog struct {
		AgentID string         `json:"agentId"`
		Tools   []catalogEntry `json:"tools"`
		Groups  []catalogGroup `json:"groups"`
	}
	_ = json.Unmarshal(cat.Payload, &catalog)
	i := slices.IndexFunc(catalog.Tools, func(e catalogEntry) bool { return e.ID == "test_echo" })
	if catalog.AgentID != "main" || i < 0 || !strings.Contains(string(catalog.Tools[i].Parameters), `"text"`) ||
		catalog.Tools[i].Description != "Echo text back" || len(catalog.Groups) == 0 {
		t.Errorf("catalog = %s", cat.Payload)
	}
	type invokeOut struct {
		OK       bool   `json:"ok"`
		ToolName string `json:"toolName"`
		Output   struct {
			Content []struct{ Type, Text string } `json:"content"`
		} `json:"output"`
		Error *struct {
			Code, Message string
			Details       json.RawMessage
		} `json:"error"`
	}
	inv := c.call("tools.invoke", map[string]any{"name": "test_echo", "args": map[string]any{"text": "hi"}})
	if !inv.OK {
		t.Fatalf("tools.invoke: %+v", inv.Error)
	}
	out := decode[invokeOut](t, inv.Payload)
	if !out.OK || out.ToolName != "test_echo" || len(out.Output.Content) != 1 || out.Output.Content[0].Text != "hi" {
		t.Errorf("tools.invoke = %s %+v", inv.Payload, inv.Error)
	}
	bad := c.call("tools.invoke", map[string]any{"name": "test_echo", "args": map[string]any{"nope": 1}})
	if !bad.OK {
		t.Fatalf("tools.invoke bad args: %+v", bad.Error)
	}
	if out := decode[invokeOut](t, bad.Payload); out.OK || out.Error == nil || out.Error.Code != "INVALID_PARAMS" {
		t.Errorf("tools.invoke bad args = %s", bad.Payload)
	}
	unknown := c.call("tools.invoke", map[string]any{"name": "no_such_tool"})
	if !unknown.OK {
		t.Fatalf("tools.invoke unknown: %+v", unknown.Error)
	}
	if out := decode[invokeOut](t, unknown.Payload); out.OK || out.Error == nil || out.Error.Code != "UNKNOWN_TOOL" ||
		out.Error.Message != `unknown tool "no_such_tool"` || strings.Contains(string(unknown.Payload), `"details"`) {
		t.Errorf("tools.invoke unknown = %s", unknown.Payload)
	}
	eff := c.call("tools.effective", map[string]any{"agentId": "main"})
	if !eff.OK || !strings.Contains(string(eff.Payload), `"test_echo"`) {
		t.Errorf("tools.effective = %s %+v", eff.Payload, eff.Error)
	}
	// tools.invoke needs operator.write.
	r := dialConnected(t, ts.url, readScopes)
	if f := r.call("tools.invoke", map[string]any{"name": "test_echo"}); f.Error == nil || f.Error.Message != "missing scope: operator.write" {
		t.Errorf("reader tools.invoke: %+v", f.Error)
	}
}

func TestInfoMethods(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{agents: {list: [{id: "ops", name: "Ops", default: true}, {id: "main"}]},
		models: {providers: {local: {models: [{id: "m1", contextWindow: 8192}]}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
	c := dialConnected(t, ts.url)
	ws := filepath.Join(dir, "workspace")
	if f := c.call("agents.list", nil); !f.OK || string(f.Payload) !=
		`{"agents":[{"id":"ops","name":"Ops","workspace":"`+ws+`"},{"id":"main","workspace":"`+ws+`"}],"defaultId":"ops","mainKey":"main","scope":"per-sender"}` {
		t.Errorf("agents.list = %s %+v", f.Payload, f.Error)
	}
	if f := c.call("models.list", nil); !f.OK || !strings.Contains(string(f.Payload), `"id":"m1"`) ||
		!strings.Contains(string(f.Payload), `"provider":"local"`) {
		t.Errorf("models.list = %s", f.Payload)
	}
	if f := c.call("channels.status", nil); !f.OK || !strings.Contains(string(f.Payload), `"channelOrder":[]`) {
		t.Errorf("channels.status = %s", f.Payload)
	}
	if f := c.call("system-presence", nil); !f.OK || !strings.HasPrefix(string(f.Payload), "[") {
		t.Errorf("system-presence = %s", f.Payload)
	}
	h := decode[map[string]any](t, c.call("health", map[string]any{"probe": true}).Payload)
	for _, k := range []string{"ok", "ts", "durationMs", "channels", "channelOrder", "channelLabels", "heartbeatSeconds", "defaultAgentId", "agents", "sessions"} {
		if _, ok := h[k]; !ok {
			t.Errorf("health lacks %s", k)
		}
	}
	if h["defaultAgentId"] != "ops" {
		t.Errorf("defaultAgentId = %v", h["defaultAgentId"])
	}
	st := decode[map[string]any](t, c.call("status", nil).Payload)
	if st["configPath"] != cfgPath || st["version"] != "test" {
		t.Errorf("status = %v", st)
	}
}

func TestConfigAuthRotation(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{gateway: {auth: {token: "first-token"}}}`)
	ts := startServerRaw(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: 20 * time.Millisecond})
	withToken := func(tok string) func(map[string]any) {
		return func(p map[string]any) { p["auth"] = map[string]any{"token": tok} }
	}
	c := dialConnected(t, ts.url, withToken("first-token"))
	writeFile(t, cfgPath, `{gateway: {auth: {token: "second-token"}}}`)
	if code, reason := c.waitClose(t); code != 4001 || reason != "gateway auth changed" {
		t.Errorf("close %d %q", code, reason)
	}
	dialConnected(t, ts.url, withToken("second-token"))
	old := dial(t, ts.url)
	if f := old.call("connect", connectParams(withToken("first-token"))); f.OK {
		t.Errorf("old token still accepted")
	}
}

// Base-hash rules match the original (peer 2026.9.6): a hashless
// config.patch may change only ui.prefs; its refusal names the paths and
// says "with baseHash"; with no config file a baseHash is accepted.
func TestConfigWriteBaseHashRulesMatchOriginal(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	c := dialConnected(t, ts.url)

	// No file yet: any baseHash is accepted, for set and patch.
	if f := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "coding"}}`, "baseHash": "not-a-real-hash"}); !f.OK {
		t.Fatalf("patch with a baseHash and no config file: %+v", f.Error)
	}
	raw, _ := os.ReadFile(cfgPath)
	hash := config.HashRaw(raw)

	// A hashless patch of tools.profile is refused, naming the path.
	f := c.call("config.patch", map[string]any{"raw": `{tools: {profile: "full"}}`})
	if f.OK || f.Error.Code != "INVALID_REQUEST" ||
		f.Error.Message != "config base hash required for tools.profile; re-run config.get and retry with baseHash" {
		t.Errorf("hashless tools.profile patch: %s %+v", f.Payload, f.Error)
	}
	// ui.prefs is last-writer-wins: no hash needed.
	if f := c.call("config.patch", map[string]any{"raw": `{ui: {prefs: {theme: "dark"}}}`}); !f.OK {
		t.Errorf("hashless ui.prefs patch: %+v", f.Error)
	}
	// ui.prefs that is not an object fails the structure check.
	if f := c.call("config.patch", map[string]any{"raw": `{ui: {prefs: 5}}`}); f.OK ||
		f.Error.Message != "config base hash required; re-run config.get and retry" {
		t.Errorf("hashless ui.prefs scalar: %+v", f.Error)
	}
	if after, _ := os.ReadFile(cfgPath); !strings.Contains(string(after), `"profile": "coding"`) || config.HashRaw(after) == hash {
		t.Errorf("file after hashless patches:\n%s", after)
	}
	// With the file gone again, config.set with a stale baseHash is accepted.
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	if f := c.call("config.set", map[string]any{"raw": `{tools: {profile: "minimal"}}`, "baseHash": hash}); !f.OK {
		t.Errorf("set with a baseHash and no config file: %+v", f.Error)
	}
}

// A reader (operator.read) can read the config but not write it: set,
// patch and apply are admin-only and leave the file untouched.
func TestConfigWritesNeedAdmin(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{tools: {profile: "coding"}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}, ConfigPollInterval: -1})
	r := dialConnected(t, ts.url, readScopes)
	get := r.call("config.get", nil)
	if !get.OK {
		t.Fatalf("reader config.get: %+v", get.Error)
	}
	hash := decode[map[string]any](t, get.Payload)["hash"]
	for _, m := range []string{"config.set", "config.patch", "config.apply"} {
		f := r.call(m, map[string]any{"raw": `{tools: {profile: "full"}}`, "baseHash": hash})
		if f.OK || f.Error == nil || f.Error.Message != "missing scope: operator.admin" {
			t.Errorf("reader %s: %s %+v", m, f.Payload, f.Error)
		}
	}
	if after, _ := os.ReadFile(cfgPath); string(after) != `{tools: {profile: "coding"}}` {
		t.Errorf("a reader changed the config:\n%s", after)
	}
	if ts.s.Config().String("tools.profile", "") != "coding" {
		t.Errorf("a reader changed the running config")
	}
}
