package all

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// Every property of every registered agent tool's schema says what it is
// for: help, `tools schema`, agents and MCP clients show these strings, and
// a blank one leaves them guessing (issue 30 item 23: 9 of process's 11
// properties had none). Nested object properties count too.
func TestEverySchemaPropertyHasADescription(t *testing.T) {
	var missing []string
	for _, a := range tools.All() {
		if a.Tool == "" {
			continue // gateway-native wire methods: not an agent tool
		}
		var schema map[string]any
		if err := json.Unmarshal([]byte(a.Schema), &schema); err != nil {
			t.Fatalf("%s %s: schema: %v", a.Tool, a.Verb, err)
		}
		name := strings.TrimSpace(a.Tool + " " + a.Verb)
		missing = append(missing, undescribed(name, "", schema)...)
	}
	sort.Strings(missing)
	missing = slices.Compact(missing)
	if len(missing) > 0 {
		t.Errorf("%d schema properties without a description:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// undescribed lists the properties under node (recursing into object
// properties and array items) whose schema has no non-empty description.
func undescribed(action, path string, node map[string]any) []string {
	var out []string
	props, _ := node["properties"].(map[string]any)
	for k, v := range props {
		p, _ := v.(map[string]any)
		at := k
		if path != "" {
			at = path + "." + k
		}
		if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, action+": "+at)
		}
		out = append(out, undescribed(action, at, p)...)
	}
	if items, ok := node["items"].(map[string]any); ok {
		out = append(out, undescribed(action, path+"[]", items)...)
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		alts, _ := node[key].([]any)
		for _, alt := range alts {
			if m, ok := alt.(map[string]any); ok {
				out = append(out, undescribed(action, path, m)...)
			}
		}
	}
	return out
}
