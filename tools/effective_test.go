package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/config"
)

// tools.effective names only registered tools: a core tool the groups and
// profiles name that the build lacks is left out of allowed and removed and
// named once, in the note. This build registers every core tool, so the
// case is built with a registry that has only read and exec (exec denied).
func TestEffectiveRegisteredLeavesOutToolsNotBuilt(t *testing.T) {
	r := NewRegistry()
	for _, name := range []string{"read", "exec"} {
		r.Register(&Action{Tool: name, Where: Local, Run: func(context.Context, *Env, json.RawMessage) (any, error) { return nil, nil }})
	}
	cfg := config.Empty()
	cfg.Doc = map[string]any{"tools": map[string]any{"deny": []any{"exec", "message"}}}
	rep := effectiveRegistered(&Env{Config: cfg}, r)
	if !slices.Equal(rep.Allowed, []string{"read"}) {
		t.Errorf("allowed = %v, want [read]", rep.Allowed)
	}
	if len(rep.Removed) != 1 || rep.Removed[0].Tool != "exec" {
		t.Errorf("removed = %+v, want exec only (message is not built)", rep.Removed)
	}
	if !slices.Contains(rep.NotBuilt, "message") || slices.Contains(rep.NotBuilt, "read") {
		t.Errorf("notBuilt = %v", rep.NotBuilt)
	}
	if !strings.Contains(rep.Note, "message") || strings.Contains(rep.Note, "read,") {
		t.Errorf("note = %q", rep.Note)
	}
}
