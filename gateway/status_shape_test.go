package gateway

import (
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
)

// The original CLI's `openclaw status` reads status.sessions.byAgent,
// heartbeat.agents and tasks unguarded (it crashed on byAgent): status
// carries them, filled per configured agent, next to our own fields.
func TestStatusOriginalShape(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "openclaw.json")
	writeFile(t, cfgPath, `{agents: {list: [{id: "ops", name: "Ops", default: true}, {id: "main"}],
		defaults: {model: {primary: "local/m1"}}}}`)
	ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
	c := dialConnected(t, ts.url)
	f := c.call("status", map[string]any{"includeChannelSummary": false, "includeCliProjection": true})
	if !f.OK {
		t.Fatalf("status: %+v", f.Error)
	}
	r := gjson.ParseBytes(f.Payload)
	checks := map[string]string{
		"sessions.byAgent.#.agentId":       `["ops","main"]`,
		"sessions.byAgent.0.count":         `0`,
		"sessions.byAgent.0.recent":        `[]`,
		"sessions.count":                   `0`,
		"sessions.defaults.model":          `"local/m1"`,
		"heartbeat.defaultAgentId":         `"ops"`,
		"heartbeat.agents.#.agentId":       `["ops","main"]`,
		"tasks.total":                      `0`,
		"tasks.byStatus.running":           `0`,
		"taskAudit.errors":                 `0`,
		"runtimeVersion":                   `"test"`,
		"cliProjection.agents.rows.0.name": `"Ops"`,
		"ok":                               `true`,
		"protocol":                         `4`,
		"gateway.authMode":                 `"token"`,
		"connections.operators":            `1`,
	}
	for path, want := range checks {
		if got := r.Get(path).Raw; got != want {
			t.Errorf("status %s = %s, want %s", path, got, want)
		}
	}
}

// health, last-heartbeat and system-presence accept unknown params (the
// original does); health lists the agents and presence's own row its ip
// and device family.
func TestInfoMethodsOriginalFields(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	for _, m := range []string{"health", "last-heartbeat", "system-presence"} {
		if f := c.call(m, map[string]any{"bogus": 1}); !f.OK {
			t.Errorf("%s with an unknown param: %+v", m, f.Error)
		}
	}
	h := gjson.ParseBytes(c.call("health", nil).Payload)
	if got := h.Get("agents.#(agentId==\"main\")").Raw; !gjson.Get(got, "isDefault").Bool() ||
		gjson.Get(got, "sessions.count").Raw != "0" {
		t.Errorf("health.agents = %s", h.Get("agents").Raw)
	}
	p := gjson.ParseBytes(c.call("system-presence", nil).Payload)
	self := p.Get(`#(reason=="self")`)
	if self.Get("ip").String() != "127.0.0.1" || self.Get("deviceFamily").String() == "" {
		t.Errorf("presence self row = %s", self.Raw)
	}
}
