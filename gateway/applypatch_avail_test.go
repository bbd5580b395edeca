package gateway

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

// apply_patch that tools.exec.applyPatch switches off (enabled:false, or an
// allowModels without the caller's model) is not offered at all: it is
// missing from tools.effective's allowed list and agent tool groups and from
// tools.catalog, as the original builds no apply_patch tool then (spec
// §3.4, policy §5.5 step 11). tools.effective names why it was removed.
func TestApplyPatchUnavailableIsNotListed(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		params    map[string]any
		listed    bool
	}{
		{"enabled by default", `{}`, map[string]any{}, true},
		{"disabled", `{tools: {exec: {applyPatch: {enabled: false}}}}`, map[string]any{}, false},
		{"model not allowed", `{tools: {exec: {applyPatch: {allowModels: ["openai/gpt-5"]}}}}`,
			map[string]any{"provider": "anthropic", "model": "claude-opus-4"}, false},
		{"model allowed", `{tools: {exec: {applyPatch: {allowModels: ["openai/gpt-5"]}}}}`,
			map[string]any{"provider": "openai", "model": "gpt-5"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfgPath := filepath.Join(dir, "openclaw.json")
			writeFile(t, cfgPath, tc.cfg)
			ts := startServer(t, Options{Paths: config.Paths{StateDir: dir, ConfigPath: cfgPath}})
			c := dialConnected(t, ts.url)
			f := c.call("tools.effective", tc.params)
			if !f.OK {
				t.Fatalf("tools.effective: %+v", f.Error)
			}
			var eff struct {
				Allowed []string `json:"allowed"`
				Removed []struct{ Tool, Step string }
				Groups  []struct {
					Tools []struct{ ID string }
				}
			}
			if err := json.Unmarshal(f.Payload, &eff); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range eff.Groups {
				for _, tl := range g.Tools {
					ids = append(ids, tl.ID)
				}
			}
			if got := slices.Contains(eff.Allowed, "apply_patch"); got != tc.listed {
				t.Errorf("allowed has apply_patch=%v, want %v: %s", got, tc.listed, f.Payload)
			}
			if got := slices.Contains(ids, "apply_patch"); got != tc.listed {
				t.Errorf("agent tool list has apply_patch=%v, want %v: %v", got, tc.listed, ids)
			}
			if !tc.listed && !slices.ContainsFunc(eff.Removed, func(r struct{ Tool, Step string }) bool {
				return r.Tool == "apply_patch" && r.Step == "tools.exec.applyPatch"
			}) {
				t.Errorf("removed does not name tools.exec.applyPatch: %s", f.Payload)
			}
			if _, ok := tc.params["model"]; ok {
				return // the catalog has no caller model
			}
			f = c.call("tools.catalog", map[string]any{})
			var cat struct{ Tools []struct{ ID string } }
			if !f.OK || json.Unmarshal(f.Payload, &cat) != nil {
				t.Fatalf("tools.catalog: %s %+v", f.Payload, f.Error)
			}
			if got := slices.ContainsFunc(cat.Tools, func(e struct{ ID string }) bool { return e.ID == "apply_patch" }); got != tc.listed {
				t.Errorf("catalog has apply_patch=%v, want %v", got, tc.listed)
			}
		})
	}
}
