package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestInclude(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // relative to the config dir; "openclaw.json" is loaded
		env     map[string]string
		want    map[string]any
		wantErr string
	}{
		{
			name: "single file replaces the containing object",
			files: map[string]string{
				"openclaw.json": `{ gateway: { "$include": "./gateway.json5" } }`,
				"gateway.json5": `{ port: 19000, bind: 'lan' }`,
			},
			want: map[string]any{"gateway": map[string]any{"port": 19000.0, "bind": "lan"}},
		},
		{
			name: "include at the root",
			files: map[string]string{
				"openclaw.json": `{ "$include": "base.json5" }`,
				"base.json5":    `{ cron: { enabled: false } }`,
			},
			want: map[string]any{"cron": map[string]any{"enabled": false}},
		},
		{
			name: "array deep-merges in order, later wins, arrays concatenate",
			files: map[string]string{
				"openclaw.json": `{ tools: { "$include": ["a.json5", "b.json5"] } }`,
				"a.json5":       `{ profile: 'coding', deny: ['exec'], web: { fetch: { maxChars: 1000, enabled: true } } }`,
				"b.json5":       `{ profile: 'full', deny: ['browser'], web: { fetch: { maxChars: 2000 } } }`,
			},
			want: map[string]any{"tools": map[string]any{
				"profile": "full",
				"deny":    []any{"exec", "browser"},
				"web":     map[string]any{"fetch": map[string]any{"maxChars": 2000.0, "enabled": true}},
			}},
		},
		{
			name: "sibling keys override included content",
			files: map[string]string{
				"openclaw.json": `{ gateway: { "$include": "gw.json5", port: 20000, auth: { mode: 'password' } } }`,
				"gw.json5":      `{ port: 19000, bind: 'lan', auth: { mode: 'token', token: 't' } }`,
			},
			want: map[string]any{"gateway": map[string]any{
				"port": 20000.0, "bind": "lan",
				"auth": map[string]any{"mode": "password", "token": "t"},
			}},
		},
		{
			name: "nested includes resolve relative to the including file",
			files: map[string]string{
				"openclaw.json":          `{ agents: { "$include": "parts/agents.json5" } }`,
				"parts/agents.json5":     `{ list: [ { "$include": "./main-agent.json5" } ] }`,
				"parts/main-agent.json5": `{ id: 'main', default: true }`,
			},
			want: map[string]any{"agents": map[string]any{"list": []any{map[string]any{"id": "main", "default": true}}}},
		},
		{
			name: "included value may be a non-object without siblings",
			files: map[string]string{
				"openclaw.json": `{ tools: { allow: { "$include": "allow.json5" } } }`,
				"allow.json5":   `['read', 'write']`,
			},
			want: map[string]any{"tools": map[string]any{"allow": []any{"read", "write"}}},
		},
		{
			name: "siblings next to a non-object include are an error",
			files: map[string]string{
				"openclaw.json": `{ tools: { allow: { "$include": "allow.json5", x: 1 } } }`,
				"allow.json5":   `['read']`,
			},
			wantErr: "sibling keys require the included content to be an object",
		},
		{
			name: "cycle is named",
			files: map[string]string{
				"openclaw.json": `{ a: { "$include": "a.json5" } }`,
				"a.json5":       `{ b: { "$include": "b.json5" } }`,
				"b.json5":       `{ c: { "$include": "a.json5" } }`,
			},
			wantErr: "circular $include: ",
		},
		{
			name: "self include is a cycle",
			files: map[string]string{
				"openclaw.json": `{ a: { "$include": "openclaw.json" } }`,
			},
			wantErr: "circular $include",
		},
		{
			name: "escape outside the config dir is refused",
			files: map[string]string{
				"openclaw.json":    `{ a: { "$include": "../outside.json5" } }`,
				"../outside.json5": `{ x: 1 }`,
			},
			wantErr: "path escapes the config directory",
		},
		{
			name: "OPENCLAW_INCLUDE_ROOTS allows another root",
			files: map[string]string{
				"openclaw.json":     `{ a: { "$include": "../shared/x.json5" } }`,
				"../shared/x.json5": `{ x: 1 }`,
			},
			env:  map[string]string{"OPENCLAW_INCLUDE_ROOTS": "@shared"},
			want: map[string]any{"a": map[string]any{"x": 1.0}},
		},
		{
			name: "missing include file",
			files: map[string]string{
				"openclaw.json": `{ a: { "$include": "nope.json5" } }`,
			},
			wantErr: "nope.json5",
		},
		{
			name: "bad include value",
			files: map[string]string{
				"openclaw.json": `{ a: { "$include": 5 } }`,
			},
			wantErr: "expected a path or an array of paths",
		},
		{
			name: "syntax error in include has file:line:col",
			files: map[string]string{
				"openclaw.json": `{ a: { "$include": "bad.json5" } }`,
				"bad.json5":     "{\n  x: 1\n  y: 2 }",
			},
			wantErr: "bad.json5:3:3: invalid character 'y'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "cfg")
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = strings.ReplaceAll(v, "@", base+string(filepath.Separator))
			}
			cfg, err := Load(filepath.Join(dir, "openclaw.json"), envMap(env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Doc, tt.want) {
				t.Errorf("doc = %#v\nwant  %#v", cfg.Doc, tt.want)
			}
		})
	}
}

func TestIncludeCycleNamesFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "openclaw.json", `{ a: { "$include": "a.json5" } }`)
	writeFile(t, dir, "a.json5", `{ b: { "$include": "b.json5" } }`)
	writeFile(t, dir, "b.json5", `{ "$include": "a.json5" }`)
	_, err := Load(filepath.Join(dir, "openclaw.json"), envMap(nil))
	if err == nil {
		t.Fatal("want error")
	}
	a, b := filepath.Join(dir, "a.json5"), filepath.Join(dir, "b.json5")
	if want := a + " -> " + b + " -> " + a; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want chain %q", err, want)
	}
}

func TestIncludeDepthLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "openclaw.json", `{ x: { "$include": "f0.json5" } }`)
	for i := 0; i <= MaxIncludeDepth; i++ {
		writeFile(t, dir, "f"+itoa(i)+".json5", `{ n: { "$include": "f`+itoa(i+1)+`.json5" } }`)
	}
	writeFile(t, dir, "f"+itoa(MaxIncludeDepth+1)+".json5", `{ end: true }`)
	_, err := Load(filepath.Join(dir, "openclaw.json"), envMap(nil))
	if err == nil || !strings.Contains(err.Error(), "maximum include depth") {
		t.Fatalf("err = %v", err)
	}

	// Exactly MaxIncludeDepth nested files is fine.
	dir2 := t.TempDir()
	writeFile(t, dir2, "openclaw.json", `{ x: { "$include": "f1.json5" } }`)
	for i := 1; i < MaxIncludeDepth; i++ {
		writeFile(t, dir2, "f"+itoa(i)+".json5", `{ n: { "$include": "f`+itoa(i+1)+`.json5" } }`)
	}
	writeFile(t, dir2, "f"+itoa(MaxIncludeDepth)+".json5", `{ end: true }`)
	cfg, err := Load(filepath.Join(dir2, "openclaw.json"), envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.IncludedPaths) != MaxIncludeDepth {
		t.Errorf("included %d files, want %d", len(cfg.IncludedPaths), MaxIncludeDepth)
	}
}

func TestIncludeSymlinkEscape(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "cfg")
	writeFile(t, base, "secret.json5", `{ x: 1 }`)
	writeFile(t, dir, "openclaw.json", `{ a: { "$include": "link.json5" } }`)
	if err := os.Symlink(filepath.Join(base, "secret.json5"), filepath.Join(dir, "link.json5")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	_, err := Load(filepath.Join(dir, "openclaw.json"), envMap(nil))
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("err = %v, want symlink escape refused", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
