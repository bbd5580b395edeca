package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// BenchmarkHopToolsInvokeRead is one gateway hop of `tools.invoke read` as
// dispatch runs it, without the socket: decode the frame, read the
// idempotency key, run the one door (outer schema, tools.invoke, inner
// schema, policy, the read handler), encode the payload.
func BenchmarkHopToolsInvokeRead(b *testing.B) {
	ts := startServer(b, Options{})
	file := filepath.Join(b.TempDir(), "small.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("0123456789abcde\n", 64)), 0o600); err != nil {
		b.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"name": "read", "args": map[string]any{"path": file}})
	frame := []byte(`{"type":"req","id":"1","method":"tools.invoke","params":` + string(args) + `}`)
	sess := &session{role: protocol.RoleOperator, scopes: []string{protocol.ScopeAdmin}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, err := protocol.DecodeRequest(frame)
		if err != nil {
			b.Fatal(err)
		}
		_ = idempotencyKey(req.Params)
		out, _, err := tools.InvokeDeferred(ctx, ts.s.env(sess), tools.Call{Method: req.Method, Args: req.Params})
		if err != nil || !strings.HasPrefix(string(out), `{"ok":true`) {
			b.Fatalf("tools.invoke read: %v %s", err, out)
		}
	}
}
