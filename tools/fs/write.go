package fs

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/write.json
var writeSchema string

func init() {
	tools.Register(&tools.Action{
		Tool:        "write",
		Destructive: true,
		Idempotent:  true,
		Summary:     "Write a file (create or overwrite), creating parent directories",
		Description: "Replaces the whole file with content. Relative paths resolve in " +
			"the agent workspace.",
		Examples: []string{
			"openclaw write notes.md --content 'hello'",
			`echo '{"content":"line 1\nline 2\n"}' | openclaw write notes.md --params -`,
		},
		Schema: writeSchema,
		Args:   []string{"path"}, PathParams: []string{"path"},
		Scope:  "operator.write",
		Where:  tools.Local,
		Run:    tools.Typed(runWrite), // params decoded once, by the door
		Render: renderWrite,
	})
}

func runWrite(ctx context.Context, env *tools.Env, a args) (any, error) {
	p, okPath := a.path()
	content, okContent := a.text("content")
	var missing []string
	if !okPath {
		missing = append(missing, labelPath)
	}
	if !okContent {
		missing = append(missing, "content")
	}
	if len(missing) > 0 {
		return nil, missingParams(missing...)
	}
	t, err := resolve(env, p)
	if err != nil {
		return nil, err
	}
	if err := guardGatewayFiles(env, t); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, t.real)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(t.real), 0o755); err != nil {
		return nil, tools.AsError(err)
	}
	// Lstat is enough: the real path has no symlink left, and nothing is
	// opened, so a FIFO or device here is refused without touching it.
	prev, err := os.Lstat(t.real)
	switch {
	case errors.Is(err, os.ErrNotExist):
		prev = nil
	case err != nil:
		return nil, tools.AsError(err)
	default:
		if err := writeKind.check(t, prev); err != nil {
			return nil, err
		}
	}
	if err := commitFile(ctx, t, []byte(content), prev, nil); err != nil {
		return nil, err
	}
	return tools.TextResult(fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), t.shown), nil), nil
}
