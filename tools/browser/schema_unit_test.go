package browser

import (
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// TestAgentSchemaConsistent: the browser tool reaches models as one flat
// schema whose `action` names the verb and whose other properties are
// merged across verbs (the first one's definition wins). So no verb may
// declare `action` itself (the agent could never set it), and a property
// shared by verbs must have one type and one enum everywhere (else the
// model sees another verb's values).
func TestAgentSchemaConsistent(t *testing.T) {
	type def struct{ verb, typ, enum string }
	seen := map[string]def{}
	for _, a := range tools.ToolActions("browser") {
		gjson.Get(a.Schema, "properties").ForEach(func(k, v gjson.Result) bool {
			name := k.String()
			if name == "action" {
				t.Errorf("browser %s declares a property named action, the agent schema's verb", a.Verb)
			}
			d := def{a.Verb, v.Get("type").Raw, v.Get("enum").Raw}
			if prev, ok := seen[name]; ok && (prev.typ != d.typ || prev.enum != d.enum) {
				t.Errorf("property %q: browser %s has type %s enum %s, browser %s type %s enum %s",
					name, prev.verb, prev.typ, prev.enum, d.verb, d.typ, d.enum)
			} else if !ok {
				seen[name] = d
			}
			return true
		})
	}
}
