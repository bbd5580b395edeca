package gateway

import (
	"testing"

	"github.com/tidwall/gjson"
)

// tools.catalog lists each multi-action tool's verbs (a tool without verbs
// lists none) and buckets tools by their group, "other" only for tools in
// no specific group (here the test binary's own test_echo).
func TestCatalogActionsAndGroups(t *testing.T) {
	ts := startServer(t, Options{})
	f := dialConnected(t, ts.url).call("tools.catalog", nil)
	if !f.OK {
		t.Fatalf("tools.catalog: %+v", f.Error)
	}
	cat := gjson.ParseBytes(f.Payload)
	ids := map[string]bool{}
	for _, g := range cat.Get("groups").Array() {
		ids[g.Get("id").Str] = true
	}
	if !ids["fs"] || !ids["openclaw"] {
		t.Errorf("group ids %v, want fs and openclaw among them", ids)
	}
	if g := cat.Get(`groups.#(id=="fs")`); !g.Get(`tools.#(id=="read")`).Exists() {
		t.Errorf("read is not in the fs group: %s", g.Get("tools.#.id").Raw)
	}
	if g := cat.Get(`groups.#(id=="other")`); g.Get(`tools.#(id=="read")`).Exists() || !g.Get(`tools.#(id=="test_echo")`).Exists() {
		t.Errorf("other group holds %s, want test_echo and not read", g.Get("tools.#.id").Raw)
	}
	process := cat.Get(`groups.#.tools.#(id=="process")|0`)
	if acts := process.Get("actions").Array(); len(acts) != 10 || !process.Get(`actions.#(=="poll")`).Exists() {
		t.Errorf("process actions %s, want its ten verbs", process.Get("actions").Raw)
	}
	if read := cat.Get(`groups.#.tools.#(id=="read")|0`); !read.Exists() || len(read.Get("actions").Array()) != 0 {
		t.Errorf("read (no verbs): %s", read.Get("actions").Raw)
	}
}
