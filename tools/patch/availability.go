package patch

import (
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// checkAvailable applies tools.exec.applyPatch.enabled and allowModels
// (spec §3.4): the tool exists only when enabled (the later default,
// true) and, when allowModels is set, only for the models it lists —
// a raw id ("gpt-5") or provider/model ("openai/gpt-5"). A caller with no
// model (a person at the CLI) is not a model and is not restricted by it.
func checkAvailable(env *tools.Env) error {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	if !cfg.Bool("tools.exec.applyPatch.enabled", true) {
		return tools.Errorf(tools.CodeDenied, "apply_patch is disabled (tools.exec.applyPatch.enabled is false)")
	}
	var allow []string
	if err := cfg.Decode("tools.exec.applyPatch.allowModels", &allow); err != nil || allow == nil {
		return nil
	}
	model := env.Subject.Model
	if model == "" {
		return nil
	}
	full := model
	if p := env.Subject.Provider; p != "" && !strings.Contains(model, "/") {
		full = p + "/" + model
	}
	for _, m := range allow {
		m = strings.TrimSpace(m)
		if strings.EqualFold(m, full) || (!strings.Contains(m, "/") && strings.EqualFold(m, model[strings.LastIndex(model, "/")+1:])) {
			return nil
		}
	}
	return tools.Errorf(tools.CodeDenied, "apply_patch is not available for model %s (tools.exec.applyPatch.allowModels: %s)",
		full, strings.Join(allow, ", "))
}
