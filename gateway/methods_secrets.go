package gateway

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// secrets.reload (the original CLI's `secrets reload`) re-reads the config
// from disk, so secret values and SecretRefs edited since the last load are
// in force, and answers as the original: {ok, warningCount}, one warning per
// SecretRef that does not resolve.
func init() {
	registerMethod(&tools.Action{
		Method:  "secrets.reload",
		Summary: "Re-read the config's secrets and SecretRefs",
		Schema:  `{"type":"object","additionalProperties":false}`,
		Scope:   protocol.ScopeAdmin,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, _ struct{}) (any, error) {
			s, err := serverFrom(env, "secrets.reload")
			if err != nil {
				return nil, err
			}
			if _, err := s.reloadFromDisk(ctx, true); err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "secrets.reload failed: %v", err)
			}
			warnings := unresolvedSecretRefs(s.Config().Doc, "", s.opts.getenv)
			for _, w := range warnings {
				s.log.Warnf("secrets.reload: %s", w)
			}
			return map[string]any{"ok": true, "warningCount": len(warnings)}, nil
		}),
		Render: func(w io.Writer, r gjson.Result) error {
			_, err := fmt.Fprintf(w, "Secrets reloaded (%d warning(s)).\n", r.Get("warningCount").Int())
			return err
		},
	})
}

// unresolvedSecretRefs walks the config for SecretRefs ({source, id}) and
// names each one that does not resolve: an env ref to an unset variable, or
// a source this gateway cannot read (only "env" is supported).
func unresolvedSecretRefs(v any, path string, getenv func(string) string) []string {
	var out []string
	switch n := v.(type) {
	case map[string]any:
		src, isStr := n["source"].(string)
		id, idStr := n["id"].(string)
		if isStr && idStr && len(n) <= 3 {
			switch {
			case src != "env":
				out = append(out, fmt.Sprintf("%s: SecretRef source %q is not supported", path, src))
			case strings.TrimSpace(getenv(id)) == "":
				out = append(out, fmt.Sprintf("%s: SecretRef env %s is not set", path, id))
			}
			return out
		}
		for k, c := range n {
			out = append(out, unresolvedSecretRefs(c, joinPath(path, k), getenv)...)
		}
	case []any:
		for i, c := range n {
			out = append(out, unresolvedSecretRefs(c, fmt.Sprintf("%s[%d]", path, i), getenv)...)
		}
	}
	return out
}
