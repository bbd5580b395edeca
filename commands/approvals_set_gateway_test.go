package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// `approvals set --gateway` changes the gateway host's approvals file
// through exec.approvals.get (for the hash) and exec.approvals.set (compare
// and set): flags edit the current file, --file replaces it as the
// original's CLI does, and a stale --base-hash is refused with a clear
// error and nothing written.
func TestApprovalsSetGateway(t *testing.T) {
	g := startGateway(t, "")
	writeApprovals(t, g, `{"version":1,"defaults":{"security":"full"},"agents":{"main":{"allowlist":[{"pattern":"rg"}]}}}`)
	approvals := filepath.Join(g.state, "exec-approvals.json")

	out, stderr, code := runGwCLI(t, g, "approvals", "set", "--gateway", "--security", "allowlist", "--ask", "on-miss", "--json")
	if code != 0 {
		t.Fatalf("set --gateway: exit %d\n%s\n%s", code, out, stderr)
	}
	disk, err := os.ReadFile(approvals)
	if err != nil {
		t.Fatal(err)
	}
	if a := gjson.GetBytes(disk, "agents.main"); a.Get("security").String() != "allowlist" || a.Get("ask").String() != "on-miss" ||
		a.Get("allowlist.0.pattern").String() != "rg" || gjson.GetBytes(disk, "defaults.security").String() != "full" {
		t.Fatalf("gateway file after set: %s", disk)
	}
	if h := gjson.Get(out, "hash").String(); h == "" {
		t.Fatalf("set prints the new snapshot with its hash: %s", out)
	}

	// A hash read before someone else's change is stale.
	out, _, _ = runGwCLI(t, g, "approvals", "get", "--gateway", "--json")
	stale := gjson.Get(out, "hash").String()
	writeApprovals(t, g, `{"version":1,"defaults":{"security":"deny"}}`)
	out, stderr, code = runGwCLI(t, g, "approvals", "set", "--gateway", "--defaults", "--security", "full", "--base-hash", stale)
	if code == 0 || !strings.Contains(stderr, "changed since") || !strings.Contains(stderr, "approvals get --gateway") {
		t.Fatalf("stale hash: exit %d, want a refusal naming the fix\n%s\n%s", code, out, stderr)
	}
	if disk, _ := os.ReadFile(approvals); gjson.GetBytes(disk, "defaults.security").String() != "deny" {
		t.Fatalf("a refused set wrote: %s", disk)
	}

	// --file replaces the whole file (JSON5 accepted, as the original).
	src := filepath.Join(t.TempDir(), "approvals.json5")
	if err := os.WriteFile(src, []byte(`{defaults: {security: "allowlist", ask: "always"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runGwCLI(t, g, "approvals", "set", "--gateway", "--file", src, "--json")
	if code != 0 {
		t.Fatalf("set --gateway --file: exit %d\n%s\n%s", code, out, stderr)
	}
	if disk, _ := os.ReadFile(approvals); gjson.GetBytes(disk, "defaults.ask").String() != "always" || gjson.GetBytes(disk, "version").Int() != 1 {
		t.Fatalf("gateway file after --file: %s", disk)
	}
}
