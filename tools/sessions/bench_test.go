package sessions

import (
	"context"
	"fmt"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// benchStore is 10,000 stored sessions of the shapes a busy gateway has
// (main, groups, cron runs, sub-agents over five agents), each with a
// label and token counts, on a real SQLite database.
func benchStore(b *testing.B) *tools.Env {
	dir := b.TempDir()
	s, _ := openStore(b, dir)
	now := s.now()
	var es []*Entry
	for i := range 10_000 {
		agent := fmt.Sprintf("agent%d", i%5)
		var key string
		switch i % 4 {
		case 0:
			key = fmt.Sprintf("agent:%s:discord:group:%d", agent, i)
		case 1:
			key = fmt.Sprintf("agent:%s:cron:job-%d", agent, i)
		case 2:
			key = fmt.Sprintf("agent:%s:subagent:%08x", agent, i)
		default:
			key = fmt.Sprintf("agent:%s:telegram:direct:%d", agent, i)
		}
		es = append(es, &Entry{Key: key, UpdatedAt: now - int64(i)*1000, Label: fmt.Sprintf("label %d", i),
			Model: "openai/gpt-5", InputTokens: 1200, OutputTokens: 300, TotalTokens: 1500, LastChannel: "telegram"})
	}
	if err := s.Put(context.Background(), es...); err != nil {
		b.Fatal(err)
	}
	return &tools.Env{Config: loadConfig(b, dir, ""), StateDir: dir, Services: map[string]tools.Service{"sessions": s}}
}

// BenchmarkSessionsList10k is one sessions.list call (through the one
// door, JSON result) over 10,000 stored sessions: the default page (the
// original's CLI asks without a limit) and the full-scan filters
// (excludeSubagents). The bound is 50 ms per call.
func BenchmarkSessionsList10k(b *testing.B) {
	env := benchStore(b)
	for _, c := range []struct {
		name, params string
	}{
		{"default", `{}`},
		{"agent-search", `{"agentId":"agent3","search":"label 99"}`},
		{"excludeSubagents", `{"excludeSubagents":true,"limit":200}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tools.Invoke(context.Background(), env, tools.Call{ID: "sessions.list", Args: []byte(c.params)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTranscriptAppend is one committed Append of one message to a
// session's transcript (real SQLite, WAL).
func BenchmarkTranscriptAppend(b *testing.B) {
	s, _ := openStore(b, b.TempDir())
	ctx := context.Background()
	m := textMsg("assistant", "a typical short answer of a model turn, some sixty characters")
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Append(ctx, "agent:main:main", m); err != nil {
			b.Fatal(err)
		}
	}
}
