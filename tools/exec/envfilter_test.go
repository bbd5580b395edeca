package exectool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// Env overrides that make bash run code of the caller's choosing are
// refused before anything runs (issue 17 item 2): each attack below, run
// for real, would create the marker file if the override reached bash.
func TestEnvInjectionIsRefused(t *testing.T) {
	for _, c := range []struct {
		name    string
		command string
		env     map[string]string
	}{
		{"exported function shadows ls", "ls >/dev/null", map[string]string{"BASH_FUNC_ls%%": "() { touch MARK; }"}},
		{"lower-case function key", "ls >/dev/null", map[string]string{"bash_func_ls%%": "() { touch MARK; }"}},
		{"xtrace with PS4", "true", map[string]string{"SHELLOPTS": "xtrace", "PS4": "$(touch MARK)"}},
		{"PS4 alone", "set -x; true", map[string]string{"PS4": "$(touch MARK)"}},
		{"BASHOPTS", "true", map[string]string{"BASHOPTS": "extdebug"}},
		{"BASH_ENV", "true", map[string]string{"BASH_ENV": "./evil.sh"}},
		{"ENV", "true", map[string]string{"ENV": "./evil.sh"}},
		{"PROMPT_COMMAND", "true", map[string]string{"PROMPT_COMMAND": "touch MARK"}},
		{"IFS", "true", map[string]string{"IFS": "x"}},
		{"mixed-case Bash_Env", "true", map[string]string{"Bash_Env": "./evil.sh"}},
		{"BASH_XTRACEFD", "true", map[string]string{"BASH_XTRACEFD": "1"}},
		{"ZDOTDIR", "true", map[string]string{"ZDOTDIR": "."}},
		{"PERL5OPT", "true", map[string]string{"PERL5OPT": "-Mevil"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := localEnv(t)
			env.Config = nil
			os.WriteFile(filepath.Join(env.Workspace, "evil.sh"), []byte("touch MARK\n"), 0o644)
			b, _ := json.Marshal(map[string]any{"command": c.command, "env": c.env})
			t.Setenv("SHELL", "/bin/bash")
			_, err := invoke(t, env, string(b))
			if code(err) != tools.CodeDenied {
				t.Errorf("env %v: %v, want refused (denied)", c.env, err)
			}
			if _, err := os.Stat(filepath.Join(env.Workspace, "MARK")); err == nil {
				t.Errorf("env %v: the injected code ran", c.env)
			}
		})
	}
	// A plain override still works.
	env := localEnv(t)
	m, err := invoke(t, env, `{"command":"echo $GREETING","env":{"GREETING":"hi"}}`)
	if err != nil || text(m) != "hi" {
		t.Fatalf("plain override: %v %v", m, err)
	}
}
