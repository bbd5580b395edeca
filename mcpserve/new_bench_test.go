package mcpserve_test

import (
	"testing"

	"github.com/openclaw-go/openclaw/mcpserve"
	"github.com/openclaw-go/openclaw/tools"
)

// BenchmarkNew: building the server over the default toolset (Select,
// schemas, AddTool), the in-process part of a start.
func BenchmarkNew(b *testing.B) {
	env := &tools.Env{StateDir: b.TempDir(), Subject: mcpserve.Subject("")}
	for b.Loop() {
		if _, err := mcpserve.New(mcpserve.Config{Env: func() (*tools.Env, error) { return env, nil }}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelect: the tool selection alone.
func BenchmarkSelect(b *testing.B) {
	env := &tools.Env{StateDir: b.TempDir(), Subject: mcpserve.Subject("")}
	for b.Loop() {
		if _, err := mcpserve.Select(env, mcpserve.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
