package agentrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// instant is an in-process model: its first answer of a turn is n read
// calls, its second the final text. It measures the loop, not a model.
type instant struct{ n int }

func (instant) ID() string { return "instant" }

func (m instant) Chat(_ context.Context, req providers.Request) (*providers.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "tool" || m.n == 0 {
		return &providers.Response{Model: "i", Text: "done", StopReason: "stop"}, nil
	}
	var calls []providers.ToolCall
	for i := range m.n {
		calls = append(calls, providers.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "read", Arguments: `{"path":"notes.txt"}`})
	}
	return &providers.Response{Model: "i", ToolCalls: calls, StopReason: "tool_calls"}, nil
}

// BenchmarkLoopPerToolCall is one agent turn run in process over a real
// store, with a model that answers at once: tools=0 is the turn's fixed
// cost (two transcript appends, the system prompt and tool schemas),
// tools=10 adds ten read calls through the one door (each: policy, schema
// check, the read, a committed toolResult append). The per-tool overhead
// is (tools=10 - tools=0) / 10.
func BenchmarkLoopPerToolCall(b *testing.B) {
	dir := b.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		b.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(cfgPath, []byte(`{"agents":{"defaults":{"model":"instant/i","workspace":"`+ws+`"}}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(cfgPath, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	f := store.Family{Name: "sessions"}
	for _, m := range sessions.Migrations() {
		f.Migrations = append(f.Migrations, store.Migration{Version: m.Version, Name: m.Name, Up: m.Up})
	}
	st, err := store.Open(context.Background(), dir, f)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sess := sessions.NewStore(st.DB())
	env := &tools.Env{Config: cfg, StateDir: dir, Services: map[string]tools.Service{"sessions": sess}}
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			r := NewRunner(sess, nil)
			r.resolve = func(*config.Config, string) (providers.Provider, providers.Ref, error) {
				return instant{n: n}, providers.Ref{Provider: "instant", Model: "i"}, nil
			}
			for i := 0; i < b.N; i++ {
				out, err := r.Run(context.Background(), env, fmt.Sprintf("r%d", i), Request{Message: "go", SessionKey: fmt.Sprintf("agent:main:b%d-%d", n, i)})
				if err != nil || out.Status != "ok" || len(out.ToolCalls) != n {
					b.Fatalf("%v %+v", err, out)
				}
			}
		})
	}
}
