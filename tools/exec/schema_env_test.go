package exectool

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/tidwall/gjson"
)

// The env param's description names what the policy refuses: a caller (a
// model reading the schema) learns the refused families before trying one.
func TestEnvDescriptionNamesRefusedFamilies(t *testing.T) {
	desc := gjson.Get(execSchema, "properties.env.description").String()
	for _, k := range []string{"PATH", "LD_", "DYLD_", "BASH_FUNC_", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
		"PS0", "PS4", "PROMPT_COMMAND", "IFS", "NODE_OPTIONS", "PYTHONPATH"} {
		probe := k
		if strings.HasSuffix(k, "_") {
			probe = k + "X"
		}
		if k != "PATH" && !policy.EnvKeyBlocked(probe) {
			t.Fatalf("%s is not refused by the policy: the list here is stale", probe)
		}
		name := k
		if k == "PS0" || k == "PS4" {
			name = "PS0-PS4"
		}
		if !strings.Contains(desc, name) {
			t.Errorf("env description %q does not name %s", desc, name)
		}
	}
}
