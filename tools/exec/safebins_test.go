package exectool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// In allowlist mode with ask off and the default safe bins, the attacks of
// issue 17 item 1 are refused before they run (each ran before: a marker
// from the compress program, a secret's bytes on stdout, a file written),
// while a plain filter still runs.
func TestSafeBinAttacksRefusedForReal(t *testing.T) {
	env := localEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"off"}}`)
	ws := env.Workspace
	os.WriteFile(filepath.Join(ws, "payload.txt"), []byte("b\na\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "sh"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, "secret.txt"), []byte("secret\n"), 0o600)
	os.WriteFile(filepath.Join(ws, "empty.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, "f"), []byte("x\n"), 0o644)
	for _, c := range []struct {
		command string
		env     map[string]string
	}{
		{"sort -S 1K --compress-prog sh payload.txt", nil},
		{"head secret.txt", nil},
		{"head -c 40 $F", map[string]string{"F": filepath.Join(ws, "secret.txt")}},
		{"grep -e secret --recur", nil},
		{"jq -n env", nil},
		{"uniq empty.txt victim.txt", nil},
		{"sort -uo out f", nil},
		{"sort --outp out f", nil},
	} {
		p := map[string]any{"command": c.command, "workdir": ws}
		if c.env != nil {
			p["env"] = c.env
		}
		b, _ := json.Marshal(p)
		m, err := invoke(t, env, string(b))
		if code(err) != tools.CodeDenied {
			t.Errorf("%q: %v %v, want denied (allowlist miss)", c.command, m, err)
		}
	}
	for _, f := range []string{"victim.txt", "out"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	m, err := invoke(t, env, `{"command":"wc -l"}`)
	if err != nil || text(m) != "0" {
		t.Fatalf("a plain safe filter: %v %v", m, err)
	}
}
