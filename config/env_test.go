package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSubstituteEnv(t *testing.T) {
	env := envMap(map[string]string{"BASE": "https://api.example", "KEY": "k1", "_U9": "u"})
	tests := []struct {
		name    string
		in      string
		want    string
		wantVar string
	}{
		{"whole value", "${KEY}", "k1", ""},
		{"inline", "${BASE}/v1?k=${KEY}", "https://api.example/v1?k=k1", ""},
		{"underscore and digits", "x${_U9}y", "xuy", ""},
		{"escape", "$${KEY}", "${KEY}", ""},
		{"escape next to substitution", "$${KEY}=${KEY}", "${KEY}=k1", ""},
		{"lowercase is not a reference", "${home}", "${home}", ""},
		{"unterminated left alone", "${KEY", "${KEY", ""},
		{"lone dollars", "$5 and $$", "$5 and $$", ""},
		{"missing", "Bearer ${NOPE}", "", "NOPE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SubstituteEnv(map[string]any{"a": []any{tt.in}}, env)
			if tt.wantVar != "" {
				var me *MissingEnvError
				if !errors.As(err, &me) || me.Var != tt.wantVar || me.Path != "a[0]" {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := got.(map[string]any)["a"].([]any)[0]; s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func TestLoadEnvSubstitution(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "openclaw.json", `{
  env: { vars: { FROM_FILE: 'file-value', BRAVE_KEY: 'from-file' } },
  tools: { web: { search: { apiKey: '${BRAVE_KEY}' } } },
  models: { providers: { x: { baseUrl: '${BASE}/v1', api: 'lit $${BASE}' } } },
  agents: { "$include": "agents.json5" },
}`)
	writeFile(t, dir, "agents.json5", `{ defaults: { workspace: '${FROM_FILE}' } }`)
	cfg, err := Load(filepath.Join(dir, "openclaw.json"), envMap(map[string]string{"BRAVE_KEY": "from-env", "BASE": "http://h"}))
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]string{
		"tools.web.search.apiKey":    "from-env", // process env wins over env.vars
		"models.providers.x.baseUrl": "http://h/v1",
		"models.providers.x.api":     "lit ${BASE}",
		"agents.defaults.workspace":  "file-value", // inside an include, from env.vars
	}
	for p, want := range checks {
		if got := cfg.String(p, ""); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}

func TestLoadMissingEnvNamesKeyPath(t *testing.T) {
	p := writeFile(t, t.TempDir(), "openclaw.json", `{ tools: { web: { search: { apiKey: '${BRAVE_KEY}' } } } }`)
	_, err := Load(p, envMap(nil))
	want := "config tools.web.search.apiKey: environment variable BRAVE_KEY is not set"
	var le *LoadError
	if !errors.As(err, &le) || le.Err.Error() != want || !strings.Contains(err.Error(), "openclaw config validate") {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// An empty variable counts as missing.
	_, err = Load(p, envMap(map[string]string{"BRAVE_KEY": ""}))
	if err == nil {
		t.Fatal("want error for empty variable")
	}
}

func TestSubstituteEnvDoesNotMutate(t *testing.T) {
	in := map[string]any{"a": "${X}", "b": []any{"${X}"}}
	_, err := SubstituteEnv(in, envMap(map[string]string{"X": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, map[string]any{"a": "${X}", "b": []any{"${X}"}}) {
		t.Errorf("input mutated: %v", in)
	}
}
