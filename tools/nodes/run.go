package nodes

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// `nodes run` (classic): a command on a node host through the exec tool
// with host=node, so it takes the same path as an agent's exec: the node's
// prepared plan, the gateway's exec policy, an operator's exec approval
// when that policy (or the node's own approvals) asks for one, and the
// node's approvals again before it spawns. Consent is explicit at every
// step: the node's surface must have been approved with system.run
// (operator.admin), the tool policy must allow exec, and a held command
// runs only after `openclaw approvals resolve <id> allow-once|allow-always`.
func registerRun() {
	reg(&tools.Action{Verb: "run", Summary: "Run a command on a node host (exec host=node: prepare, exec approvals, system.run)",
		Description: "Give the command as argv (positional words after --) or as one shell string with --raw-command. " +
			"The command runs on the node, in its cwd (--cwd is a path there); exec approvals apply as for exec: " +
			"a held command exits 8 with the `openclaw approvals resolve` line, or --await-approval waits for the decision.",
		Schema: obj(propNode,
			`"command":{"type":"array","items":{"type":"string"},"description":"argv to run"}`,
			`"rawCommand":{"type":"string","description":"A shell command string (/bin/sh -lc on the node); on the command line --raw-command"}`,
			`"cwd":{"type":"string","description":"Working directory on the node"}`,
			`"env":{"type":["array","object"],"description":"Environment overrides: KEY=VAL strings or an object"}`,
			`"commandTimeoutMs":{"type":"integer","minimum":1,"description":"Milliseconds before the node kills the command (default tools.exec.timeoutSeconds)"}`,
			`"security":{"type":"string","enum":["deny","allowlist","full"],"description":"Can only tighten the configured security"}`,
			`"ask":{"type":"string","enum":["off","on-miss","always"],"description":"Can only tighten the configured ask mode"}`,
			`"awaitApproval":{"type":"boolean","description":"Wait for an operator's decision instead of answering pending (exit 8)"}`),
		Args:     []string{"command..."},
		Examples: []string{"openclaw nodes run --node build-box -- uname -a", `openclaw nodes run --node build-box --raw-command "git status"`},
		Run:      runRun, Render: renderRun})
}

func runRun(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	p := map[string]any{}
	_ = json.Unmarshal(raw, &p)
	argv, _ := stringList(p["command"])
	shell := str(p["rawCommand"])
	switch {
	case shell != "" && len(argv) > 0:
		return nil, tools.Errorf(tools.CodeInvalidParams, "nodes run: give the command as argv or as rawCommand, not both")
	case shell == "" && len(argv) == 0:
		return nil, tools.Errorf(tools.CodeInvalidParams, "nodes run: give a command (argv, or rawCommand \"shell string\")")
	case shell == "":
		shell = shellJoin(argv)
	}
	args := map[string]any{"command": shell, "host": "node"}
	if n := str(p["node"]); n != "" {
		ref, err := resolveNode(ctx, env, n)
		if err != nil {
			return nil, err
		}
		args["node"] = ref.NodeID
	}
	if cwd := str(p["cwd"]); cwd != "" {
		args["workdir"] = cwd
	}
	envs := map[string]string{}
	switch e := p["env"].(type) {
	case []any:
		for _, kv := range e {
			s, _ := kv.(string)
			k, v, ok := strings.Cut(s, "=")
			if !ok || k == "" {
				return nil, tools.Errorf(tools.CodeInvalidParams, "nodes run: env %q is not KEY=VAL", s)
			}
			envs[k] = v
		}
	case map[string]any:
		for k, v := range e {
			s, ok := v.(string)
			if !ok {
				return nil, tools.Errorf(tools.CodeInvalidParams, "nodes run: env %s must be a string", k)
			}
			envs[k] = s
		}
	}
	if len(envs) > 0 {
		args["env"] = envs
	}
	if ms := timeoutOf(map[string]any{"invokeTimeout": p["commandTimeoutMs"]}, 0); ms > 0 {
		args["timeout"] = float64(ms) / 1000
	}
	copyKeys(args, p, "security", "ask", "awaitApproval")
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := tools.Invoke(ctx, env, tools.Call{Tool: "exec", Args: b})
	if err != nil {
		return nil, err
	}
	d := gjson.GetBytes(out, "details")
	return tools.JSONResult(map[string]any{"exitCode": jsonValue(d.Get("exitCode")), "timedOut": d.Get("timedOut").Bool(),
		"success": d.Get("success").Bool(), "stdout": d.Get("stdout").String(), "stderr": d.Get("stderr").String(),
		"error": nil, "truncated": d.Get("truncated").Bool(), "nodeId": d.Get("nodeId").String()})
}
