package fs_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/fs"
)

// newEnv returns an env whose workspace is a fresh temp dir.
func newEnv(t testing.TB) (*tools.Env, string) {
	t.Helper()
	dir := t.TempDir()
	return &tools.Env{Config: config.Empty(), StateDir: dir, Workspace: dir}, dir
}

// confined turns tools.fs.workspaceOnly on.
func confined(env *tools.Env) *tools.Env {
	cfg := config.Empty()
	cfg.Doc["tools"] = map[string]any{"fs": map[string]any{"workspaceOnly": true}}
	env.Config = cfg
	return env
}

func call(t testing.TB, env *tools.Env, id string, params any) (gjson.Result, error) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: id, Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	if !json.Valid(out) {
		t.Fatalf("%s: invalid JSON result %q", id, out)
	}
	return gjson.ParseBytes(out), nil
}

func mustCall(t testing.TB, env *tools.Env, id string, params any) gjson.Result {
	t.Helper()
	r, err := call(t, env, id, params)
	if err != nil {
		t.Fatalf("%s %v: %v", id, params, err)
	}
	return r
}

// text is the first content block's text.
func text(r gjson.Result) string { return r.Get("content.0.text").String() }

func wantErr(t testing.TB, err error, code, msg string) {
	t.Helper()
	var te *tools.Error
	if !errors.As(err, &te) {
		t.Fatalf("want %s error %q, got %v", code, msg, err)
	}
	if te.Code != code || te.Message != msg {
		t.Fatalf("want %s %q\n got %s %q", code, msg, te.Code, te.Message)
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
