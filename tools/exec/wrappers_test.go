package exectool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/tools"
)

// pendingOf runs an exec that must answer pending approval and returns its
// details.
func pendingOf(t *testing.T, env *tools.Env, command string) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"command": command})
	_, err := invoke(t, env, string(b))
	if code(err) != tools.CodePendingApproval {
		t.Fatalf("%q: %v, want pending approval", command, err)
	}
	return tools.AsError(err).Details.(map[string]any)
}

// allow-always on `env -u FOO make --version` stores make, not env (issue
// 17 item 4); `env bash -c …` then still needs an approval, and offers no
// allow-always (a shell is never stored); make behind other wrappers runs,
// but not with a variable env sets that the entry does not name (issue 30
// item 3), and such a command offers no allow-always (the entry stored
// would not cover it).
func TestAllowAlwaysStoresTheWrappedProgram(t *testing.T) {
	env := approvalEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"}}`)
	if dec, _ := json.Marshal(pendingOf(t, env, "env FOO=1 make --version")["allowedDecisions"]); strings.Contains(string(dec), "allow-always") {
		t.Errorf("a command env sets a variable for offers allow-always: %s", dec)
	}
	d := pendingOf(t, env, "env -u FOO make --version")
	if m, _ := json.Marshal(d["missed"]); string(m) != `["/usr/bin/make"]` {
		t.Fatalf("missed %s, want the wrapped make", m)
	}
	id := d["approvalId"].(string)
	if _, err := method(t, env, "exec.approval.resolve", `{"id":"`+id+`","decision":"allow-always"}`); err != nil {
		t.Fatal(err)
	}
	doc, err := approvalsfile.Load(approvalsfile.Path(env.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, e := range doc.Agent("main").Allowlist {
		stored = append(stored, e.Pattern)
	}
	if strings.Join(stored, ",") != "/usr/bin/make" {
		t.Fatalf("allow-always stored %v, want only /usr/bin/make", stored)
	}

	marker := filepath.Join(env.Workspace, "MARK")
	d = pendingOf(t, env, "env bash -c 'touch "+marker+"'")
	if dec, _ := json.Marshal(d["allowedDecisions"]); strings.Contains(string(dec), "allow-always") {
		t.Errorf("a shell behind env offers allow-always: %s", dec)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("env bash -c ran unasked")
	}
	pendingOf(t, env, "env FOO=2 make --version")
	for _, cmd := range []string{"env -u FOO make --version", "nice -n 5 make --version", "timeout 5 make --version"} {
		b, _ := json.Marshal(map[string]any{"command": cmd})
		if _, err := invoke(t, env, string(b)); err != nil {
			t.Errorf("%q after allow-always make: %v", cmd, err)
		}
	}
	// A refused env assignment is a miss even for an allowlisted program.
	pendingOf(t, env, "env LD_PRELOAD=/nonexistent.so make --version")
}
