package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name         string
		doc          string
		wantIssues   []Issue
		wantWarnings []Issue
	}{
		{name: "empty", doc: `{}`},
		{
			name: "bad enum",
			doc:  `{ gateway: { bind: 'everywhere' } }`,
			wantIssues: []Issue{{"gateway.bind",
				`Invalid option: expected one of "loopback"|"lan"|"tailnet"|"auto"|"custom"`}},
		},
		{
			name:       "wrong type",
			doc:        `{ gateway: { port: '18789' } }`,
			wantIssues: []Issue{{"gateway.port", "Invalid input: expected integer, received string"}},
		},
		{
			name:       "out of range",
			doc:        `{ gateway: { port: 70000 } }`,
			wantIssues: []Issue{{"gateway.port", "Too big: expected number to be <=65535"}},
		},
		{
			name:       "not an integer",
			doc:        `{ cron: { maxConcurrentRuns: 1.5 } }`,
			wantIssues: []Issue{{"cron.maxConcurrentRuns", "Invalid input: expected integer, received number"}},
		},
		{
			name:         "unknown key is only a warning",
			doc:          `{ tools: { bogusKey: 1, profile: 'coding' } }`,
			wantWarnings: []Issue{{"tools", `Unrecognized key: "bogusKey"`}},
		},
		{
			name:         "several unknown keys, root and nested",
			doc:          `{ zzz: 1, aaa: 2, gateway: { auth: { mode: 'token', tokn: 'x' } } }`,
			wantWarnings: []Issue{{"", `Unrecognized keys: "aaa", "zzz"`}, {"gateway.auth", `Unrecognized key: "tokn"`}},
		},
		{
			name:         "unknown key does not hide real issues",
			doc:          `{ tools: { bogus: true, profile: 'everything' } }`,
			wantIssues:   []Issue{{"tools.profile", `Invalid option: expected one of "minimal"|"coding"|"messaging"|"full"`}},
			wantWarnings: []Issue{{"tools", `Unrecognized key: "bogus"`}},
		},
		{
			name:       "agent list item missing id and bad types inside arrays",
			doc:        `{ agents: { list: [ { id: 'a' }, { name: 'b', tools: { deny: 'exec' } } ] } }`,
			wantIssues: []Issue{{"agents.list[1].id", "Invalid input: expected a value, received undefined"}, {"agents.list[1].tools.deny", "Invalid input: expected array, received string"}},
		},
		{
			name:         "byProvider entries are checked and closed",
			doc:          `{ tools: { byProvider: { 'openai/gpt-5.2': { profile: 'nope', extra: 1 } } } }`,
			wantIssues:   []Issue{{`tools.byProvider["openai/gpt-5.2"].profile`, `Invalid option: expected one of "minimal"|"coding"|"messaging"|"full"`}},
			wantWarnings: []Issue{{`tools.byProvider["openai/gpt-5.2"]`, `Unrecognized key: "extra"`}},
		},
		{
			name:       "secret input accepts a string or a SecretRef only",
			doc:        `{ gateway: { auth: { token: 5 } } }`,
			wantIssues: []Issue{{"gateway.auth.token", "Invalid input"}},
		},
		{
			name: "secret ref accepted",
			doc:  `{ gateway: { auth: { token: { source: 'env', id: 'OPENCLAW_GATEWAY_TOKEN' } } } }`,
		},
		{
			name: "open sections accept anything",
			doc:  `{ channels: { telegram: { anything: [1, {x: 2}] } }, session: { whatever: true }, plugins: { entries: {} } }`,
		},
		{
			name:       "env catch-all values must be strings",
			doc:        `{ env: { FOO: 'bar', N: 1 } }`,
			wantIssues: []Issue{{"env.N", "Invalid input: expected string, received number"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustJSON5(t, tt.doc).(map[string]any)
			issues, warnings := Validate(doc)
			if !reflect.DeepEqual(issues, tt.wantIssues) {
				t.Errorf("issues = %#v\nwant     %#v", issues, tt.wantIssues)
			}
			if !reflect.DeepEqual(warnings, tt.wantWarnings) {
				t.Errorf("warnings = %#v\nwant       %#v", warnings, tt.wantWarnings)
			}
		})
	}
}

func TestValidateDoesNotMutate(t *testing.T) {
	doc := mustJSON5(t, `{ tools: { bogus: 1 } }`).(map[string]any)
	Validate(doc)
	if _, ok := doc["tools"].(map[string]any)["bogus"]; !ok {
		t.Fatal("Validate removed an unknown key from the caller's document")
	}
}

func TestRealisticConfigLoadsClean(t *testing.T) {
	cfg, err := Load(filepath.Join("testdata", "full.json5"), envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Issues()) != 0 {
		t.Errorf("issues:\n%s", FormatIssues(cfg.Path, cfg.Issues()))
	}
	if len(cfg.Warnings()) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings())
	}
	if len(cfg.Doc) < 30 {
		t.Errorf("only %d top-level sections", len(cfg.Doc))
	}
	// It survives a write/reload round trip unchanged.
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if _, err := Write(p, cfg.Doc); err != nil {
		t.Fatal(err)
	}
	again, err := Load(p, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Doc, cfg.Doc) {
		t.Error("round trip changed the document")
	}
	if ch := ChangedPaths(cfg.Doc, again.Doc); len(ch) != 0 {
		t.Errorf("changed: %v", ch)
	}
}

func TestFormatIssues(t *testing.T) {
	got := FormatIssues("/home/u/.openclaw/openclaw.json", []Issue{
		{"gateway.bind", "Invalid input"},
		{"", `Unrecognized key: "x"`},
	})
	want := "Invalid config at /home/u/.openclaw/openclaw.json:\n- gateway.bind: Invalid input\n- <root>: Unrecognized key: \"x\"\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(FormatIssues("p", nil), "Invalid config at p:") {
		t.Error("header")
	}
}

func TestValidateNonFinite(t *testing.T) {
	issues, _ := Validate(map[string]any{"gateway": map[string]any{"port": posInf()}})
	want := []Issue{{"gateway.port", "Invalid input: Infinity and NaN are not allowed"}}
	if !reflect.DeepEqual(issues, want) {
		t.Errorf("issues = %v", issues)
	}
}
