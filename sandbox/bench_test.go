package sandbox_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// BenchmarkExecTrue is `exec --command true` through the one door, on the
// host and inside bubblewrap: the difference is the sandbox's cost per
// call (make bench prints it; nothing asserts a time).
func BenchmarkExecTrue(b *testing.B) {
	if _, err := os.Stat("/usr/bin/bwrap"); err != nil {
		b.Skip("bubblewrap is not installed")
	}
	for _, c := range []struct{ name, cfg string }{
		{"host", `{}`},
		{"bubblewrap", `{"agents":{"defaults":{"sandbox":{"mode":"all"}}}}`},
		// the same with the host's network: no network namespace to make and tear down
		{"bubblewrap-sharednet", `{"agents":{"defaults":{"sandbox":{"mode":"all","docker":{"network":"host"}}}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "openclaw.json")
			if err := os.WriteFile(path, []byte(c.cfg), 0o600); err != nil {
				b.Fatal(err)
			}
			cfg, err := config.Load(path, func(string) string { return "" })
			if err != nil {
				b.Fatal(err)
			}
			env := &tools.Env{Config: cfg, StateDir: dir, Workspace: dir}
			call := tools.Call{ID: "exec", Args: json.RawMessage(`{"command":"true"}`)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tools.Invoke(context.Background(), env, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
