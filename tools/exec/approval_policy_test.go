package exectool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/tools"
)

// putApprovals writes the approvals file of env's state dir.
func putApprovals(t *testing.T, env *tools.Env, doc string) {
	t.Helper()
	if err := os.WriteFile(approvalsfile.Path(env.StateDir), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A call's own security tightens the file's (spec §1.8: the minimum wins):
// with the file at full, security=deny refuses and security=allowlist
// misses (ask off: denied), and the command does not run.
func TestCallSecurityTightensTheFile(t *testing.T) {
	env := localEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"full","ask":"off"}}`)
	marker := filepath.Join(env.Workspace, "ran")
	for _, sec := range []string{"deny", "allowlist"} {
		b, _ := json.Marshal(map[string]any{"command": "touch " + marker, "security": sec})
		if _, err := invoke(t, env, string(b)); code(err) != tools.CodeDenied {
			t.Errorf("security=%s over a full file: %v, want denied", sec, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("security=%s: the command ran", sec)
		}
	}
	// A call cannot loosen: security=full over an allowlist file still misses.
	putApprovals(t, env, `{"version":1,"defaults":{"security":"allowlist","ask":"off"}}`)
	b, _ := json.Marshal(map[string]any{"command": "touch " + marker, "security": "full"})
	if _, err := invoke(t, env, string(b)); code(err) != tools.CodeDenied {
		t.Errorf("security=full over an allowlist file: %v, want denied", err)
	}
	// And ask tightens the same way: ask=always over ask=off needs approval.
	putApprovals(t, env, `{"version":1,"defaults":{"security":"full","ask":"off"}}`)
	b, _ = json.Marshal(map[string]any{"command": "touch " + marker, "ask": "always"})
	if _, err := invoke(t, env, string(b)); code(err) != tools.CodePendingApproval {
		t.Errorf("ask=always over ask=off: %v, want pending approval", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran without approval")
	}
}

// With no askFallback anywhere, a request nobody answers is refused when
// it expires (the default is deny, never allow): the command never runs.
func TestAskFallbackDefaultsToDeny(t *testing.T) {
	t.Setenv("OPENCLAW_EXEC_APPROVAL_TIMEOUT_MS", "200")
	env := approvalEnv(t)
	putApprovals(t, env, `{"version":1,"defaults":{"security":"full","ask":"always"}}`)
	marker := filepath.Join(env.Workspace, "ran")
	b, _ := json.Marshal(map[string]any{"command": "touch " + marker, "awaitApproval": true})
	_, err := invoke(t, env, string(b))
	if code(err) != tools.CodeDenied {
		t.Fatalf("expired without askFallback: %v, want denied", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an unanswered request ran its command")
	}
	// askFallback full (set explicitly) does run it: the test can tell.
	putApprovals(t, env, `{"version":1,"defaults":{"security":"full","ask":"always","askFallback":"full"}}`)
	if _, err := invoke(t, env, string(b)); err != nil {
		t.Fatalf("askFallback full: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("askFallback full did not run the command")
	}
}
