package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Config built as a literal (no load cache) validates afresh on each
// call and reports the same issues every time.
func TestConfigLiteralValidates(t *testing.T) {
	c := &Config{Doc: map[string]any{"gateway": map[string]any{"port": "not a number"}}}
	for i := 0; i < 2; i++ {
		if c.Valid() {
			t.Fatalf("call %d: a string gateway.port is valid", i)
		}
		if iss := c.Issues(); len(iss) == 0 || iss[0].Path != "gateway.port" {
			t.Fatalf("call %d: issues = %v", i, iss)
		}
	}
	if ok := (&Config{Doc: map[string]any{"gateway": map[string]any{"port": 18789.0}}}).Valid(); !ok {
		t.Error("a valid literal is not valid")
	}
}

// SuggestPath: keys of three letters or fewer take only a one-edit
// neighbour; nothing three edits away is suggested.
func TestSuggestPathDistanceEdges(t *testing.T) {
	for in, want := range map[string]string{
		"enx":            "env", // one edit, short key
		"evn":            "",    // two edits (a transposition), short key
		"gateway.bnd":    "gateway.bind",
		"gateway.porxyz": "", // three edits from port
		"gateway.pxrt":   "gateway.port",
	} {
		if got := SuggestPath(in); got != want {
			t.Errorf("SuggestPath(%s) = %q, want %q", in, got, want)
		}
	}
}

// Edit honours the context it is given (a cancelled one writes nothing),
// accepts a nil one, and resolves ${VAR} with opts.Getenv, not the process
// environment.
func TestEditContextAndGetenv(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "openclaw.json", `{ gateway: { auth: { token: "${CFGTEST_ONLY_IN_OPTS}" } } }`)
	before, _ := os.ReadFile(p)
	opts := EditOptions{Getenv: envMap(map[string]string{"CFGTEST_ONLY_IN_OPTS": "tok-123"})}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Edit(ctx, p, opts, setPathEdit("tools.profile", "coding")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Edit(cancelled) = %v, want context.Canceled", err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Fatalf("a cancelled edit wrote %s", after)
	}

	var nilCtx context.Context
	res, err := Edit(nilCtx, p, opts, setPathEdit("tools.profile", "coding"))
	if err != nil {
		t.Fatalf("Edit(nil ctx, Getenv): %v", err)
	}
	if got := res.Config.String("gateway.auth.token", ""); got != "tok-123" {
		t.Errorf("token = %q, want it from opts.Getenv", got)
	}
	if got := res.Config.String("tools.profile", ""); got != "coding" {
		t.Errorf("tools.profile = %q", got)
	}
}

// The draft an edit function sees: an existing blank file is an empty
// document to edit (no parse error, though it does not load as it is), a valid file comes with its loaded Config,
// a broken one with its parse error as LoadErr and no Config.
func TestEditDraftStates(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		check     func(t *testing.T, d *Draft)
	}{
		{"blank file", " \n\t\n", func(t *testing.T, d *Draft) {
			if !d.Exists || d.ParseErr != nil || d.Doc == nil || len(d.Doc) != 0 {
				t.Errorf("exists %v, parse %v, doc %v", d.Exists, d.ParseErr, d.Doc)
			}
		}},
		{"valid file", `{ tools: { profile: "coding" } }`, func(t *testing.T, d *Draft) {
			if d.ParseErr != nil || d.LoadErr != nil || d.Current == nil {
				t.Fatalf("parse %v, load %v, current %v", d.ParseErr, d.LoadErr, d.Current)
			}
			if got := d.Current.String("tools.profile", ""); got != "coding" {
				t.Errorf("Current tools.profile = %q", got)
			}
		}},
		{"syntax error", `{ tools: `, func(t *testing.T, d *Draft) {
			if d.ParseErr == nil || d.LoadErr != d.ParseErr || d.Current != nil {
				t.Errorf("parse %v, load %v, current %v", d.ParseErr, d.LoadErr, d.Current)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.name+".json", tc.src)
			called := false
			_, err := Edit(context.Background(), p, EditOptions{DryRun: true}, func(d *Draft) error {
				called = true
				tc.check(t, d)
				return nil
			})
			if err != nil || !called {
				t.Fatalf("Edit = %v, called %v", err, called)
			}
		})
	}
}

// String values directly under env are variables for ${VAR}, as are
// env.vars members.
func TestLoadEnvBlockDirectStrings(t *testing.T) {
	p := writeFile(t, t.TempDir(), "openclaw.json",
		`{ env: { CFGTEST_DIRECT: "direct", vars: { CFGTEST_NESTED: "nested" } }, gateway: { auth: { token: "${CFGTEST_DIRECT}-${CFGTEST_NESTED}" } } }`)
	cfg, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.String("gateway.auth.token", ""); got != "direct-nested" {
		t.Errorf("token = %q, want direct-nested", got)
	}
}

// A load error names the .bak only when one exists.
func TestLoadErrorMentionsBackupOnlyWhenPresent(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "openclaw.json", `{ tools: `)
	_, err := Load(p, envMap(nil))
	var le *LoadError
	if !errors.As(err, &le) || le.HasBackup || strings.Contains(err.Error(), ".bak") {
		t.Fatalf("no backup: err = %v", err)
	}
	writeFile(t, dir, "openclaw.json.bak", `{}`)
	_, err = Load(p, envMap(nil))
	if !errors.As(err, &le) || !le.HasBackup || !strings.Contains(err.Error(), filepath.Join(dir, "openclaw.json.bak")) {
		t.Fatalf("with backup: err = %v", err)
	}
}

// Paths cut short inside a quoted key are errors, never panics; an index
// one past the end reads and unsets nothing.
func TestPathEdges(t *testing.T) {
	for _, p := range []string{`a["x"`, `["x"`, `[0]["x`, `["]`, `a["]`} {
		if _, err := ParsePath(p); err == nil || !strings.Contains(err.Error(), "unclosed") {
			t.Errorf("ParsePath(%s) = %v, want unclosed", p, err)
		}
	}
	cfg := &Config{Doc: map[string]any{"a": []any{"x"}}}
	if v, ok := cfg.Get("a[1]"); ok {
		t.Errorf("Get(a[1]) = %v, true", v)
	}
	if v, ok := cfg.Get("a[0]"); !ok || v != "x" {
		t.Errorf("Get(a[0]) = %v, %v", v, ok)
	}
	doc := map[string]any{"a": map[string]any{"b": []any{"x"}}}
	if ok, err := UnsetPath(doc, "a.b[1]"); ok || err != nil {
		t.Errorf("UnsetPath(a.b[1]) = %v, %v", ok, err)
	}
	if got := doc["a"].(map[string]any)["b"].([]any); len(got) != 1 {
		t.Errorf("a.b = %v", got)
	}
}

// Schema lookups: a path of exactly 1024 bytes is looked up (1025 is
// not), a numeric segment including 9 addresses array items, a key found
// only in a later anyOf branch resolves, and a node's own anyOf is shown.
func TestSchemaLookupEdges(t *testing.T) {
	long := "models.providers." + strings.Repeat("p", 1024-len("models.providers."))
	if _, err := SchemaLookup(long); err != nil {
		t.Errorf("lookup of %d bytes: %v", len(long), err)
	}
	if _, err := SchemaLookup(long + "p"); err == nil {
		t.Errorf("lookup of %d bytes found", len(long)+1)
	}
	for _, p := range []string{"agents.list.9", "agents.list[9]", "agents.list.19.id", "agents.defaults.model.primary"} {
		if _, err := SchemaLookup(p); err != nil {
			t.Errorf("SchemaLookup(%s): %v", p, err)
		}
	}
	res, err := SchemaLookup("agents.defaults.model")
	if err != nil {
		t.Fatal(err)
	}
	if alts, _ := res["schema"].(map[string]any)["anyOf"].([]any); len(alts) != 2 {
		t.Errorf("agents.defaults.model schema = %v, want its two anyOf branches", res["schema"])
	}
}
