package patch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

const addHello = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch"

func invokePatch(env *tools.Env) error {
	args, _ := json.Marshal(map[string]string{"input": addHello})
	_, err := tools.Invoke(context.Background(), env, tools.Call{ID: "apply_patch", Args: args})
	return err
}

// tools.exec.applyPatch.enabled:false turns the tool off; allowModels, when
// set, admits only the listed models (raw id or provider/model). A refusal
// writes nothing.
func TestApplyPatchEnabledAndAllowModels(t *testing.T) {
	for _, tc := range []struct {
		name, cfg, provider, model string
		ok                         bool
	}{
		{"default on", ``, "", "", true},
		{"disabled", `{tools:{exec:{applyPatch:{enabled:false}}}}`, "", "", false},
		{"disabled for models too", `{tools:{exec:{applyPatch:{enabled:false}}}}`, "openai", "gpt-5", false},
		{"raw id allowed", `{tools:{exec:{applyPatch:{allowModels:["gpt-5"]}}}}`, "openai", "gpt-5", true},
		{"provider/model allowed", `{tools:{exec:{applyPatch:{allowModels:["openai/gpt-5"]}}}}`, "openai", "gpt-5", true},
		{"model id carrying its provider", `{tools:{exec:{applyPatch:{allowModels:["openai/gpt-5"]}}}}`, "", "openai/gpt-5", true},
		{"other model refused", `{tools:{exec:{applyPatch:{allowModels:["openai/gpt-5"]}}}}`, "anthropic", "claude-opus-4", false},
		{"same id, other provider refused", `{tools:{exec:{applyPatch:{allowModels:["openai/gpt-5"]}}}}`, "azure", "gpt-5", false},
		{"no model (a person at the CLI)", `{tools:{exec:{applyPatch:{allowModels:["openai/gpt-5"]}}}}`, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, ws := testEnv(t, tc.cfg)
			env.Subject.Provider, env.Subject.Model = tc.provider, tc.model
			err := invokePatch(env)
			_, statErr := os.Stat(filepath.Join(ws, "hello.txt"))
			if tc.ok {
				if err != nil || statErr != nil {
					t.Fatalf("want applied: %v %v", err, statErr)
				}
				return
			}
			if err == nil || tools.AsError(err).Code != tools.CodeDenied || statErr == nil {
				t.Fatalf("want denied and nothing written: %v (file: %v)", err, statErr)
			}
		})
	}
}
