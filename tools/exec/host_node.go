package exectool

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/nodes"
)

// exec with host=node runs the command on a paired node host through
// node.invoke, as the original's exec-host-node phases: system.run.prepare
// (the node canonicalises the command and reports its exec policy), the
// gateway's own policy (tools.exec.security/ask and the call's, tightened
// by the node's), an exec approval when that policy asks (or when the
// node's approvals want one: it answers SYSTEM_RUN_DENIED "approval
// required"), then system.run with the approval's id. The node re-checks
// its own approvals before anything spawns. Nothing ever falls back to
// the gateway machine.

// nodesService is the nodes family's service name (for the "is there a
// gateway here" test; the family is reached only through node.* methods).
const nodesService = "nodes"

// isNodeHost: the call (or tools.exec.host) asks for host=node.
func isNodeHost(env *tools.Env, p execParams) bool {
	host := p.Host
	if host == "" {
		host = conf(env).String("tools.exec.host", "gateway")
	}
	return host == "node"
}

// nodeTarget is the node a command runs on.
type nodeTarget struct {
	id, name, platform string
	commands           map[string]bool
}

// execNodeRef is p.node, else the agent's tools.exec.node, else
// tools.exec.node.
func execNodeRef(env *tools.Env, p execParams) string {
	if s := strings.TrimSpace(p.Node); s != "" {
		return s
	}
	cfg := conf(env)
	for i, a := range cfg.Agents().List {
		if a.ID == env.AgentID() {
			if node := cfg.String(fmt.Sprintf("agents.list[%d].tools.exec.node", i), ""); node != "" {
				return node
			}
		}
	}
	return cfg.String("tools.exec.node", "")
}

// resolveExecNode finds the node the call names (nodes.Resolve, as every
// family: id, IP, display name with case and punctuation folded, id
// prefix), or with no name the one connected node that can run
// system.run, among node.list's (with the caller's scopes).
func resolveExecNode(ctx context.Context, env *tools.Env, q string) (nodeTarget, error) {
	list, err := nodes.List(ctx, env)
	if err != nil {
		return nodeTarget{}, err
	}
	if q == "" {
		var live []nodes.Listed
		for _, n := range list {
			if n.Connected && n.Has("system.run") {
				live = append(live, n)
			}
		}
		if len(live) != 1 {
			return nodeTarget{}, tools.Errorf(tools.CodeInvalidParams,
				"exec host=node: name the node (node param, or tools.exec.node): %d connected nodes can run system.run", len(live))
		}
		return targetOf(live[0]), nil
	}
	n, err := nodes.Match(list, q)
	if err != nil {
		e := tools.AsError(err)
		return nodeTarget{}, tools.Errorf(e.Code, "exec host=node: %s", e.Message)
	}
	return targetOf(n), nil
}

func targetOf(n nodes.Listed) nodeTarget {
	t := nodeTarget{id: n.NodeID, name: n.DisplayName, platform: n.Platform, commands: map[string]bool{}}
	for _, c := range n.Commands {
		t.commands[c] = true
	}
	return t
}

// shellArgv is how a node runs a shell string (the original's
// buildNodeShellCommand).
func shellArgv(platform, command string) []string {
	if strings.HasPrefix(strings.ToLower(platform), "win") {
		return []string{"cmd.exe", "/d", "/s", "/c", command}
	}
	return []string{"/bin/sh", "-lc", command}
}

// nodeArgv is a plain command's words (no operators, quotes resolved,
// nothing for a shell to expand) run directly, so a node can bind an
// approval to its executable; anything else runs through the node's shell.
func nodeArgv(platform, command string) ([]string, bool) {
	if segs, ok := policy.AnalyzeWords(command); ok && len(segs) == 1 && !strings.HasPrefix(strings.ToLower(platform), "win") {
		argv := segs[0].Argv
		plain := len(argv) > 0 && !strings.Contains(argv[0], "=") // FOO=1 cmd sets env: the shell's job
		for _, e := range segs[0].Expands {
			plain = plain && !e
		}
		if plain {
			return argv, true
		}
	}
	return shellArgv(platform, command), false
}

// nodeInvoke calls node.invoke as the caller.
func nodeInvoke(ctx context.Context, env *tools.Env, nodeID, command string, params map[string]any, timeout time.Duration) (gjson.Result, error) {
	args := map[string]any{"nodeId": nodeID, "command": command, "params": params, "idempotencyKey": uuid.NewString(),
		"timeoutMs": timeout.Milliseconds()}
	b, err := json.Marshal(args)
	if err != nil {
		return gjson.Result{}, err
	}
	out, err := tools.Invoke(ctx, env, tools.Call{Method: "node.invoke", Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.GetBytes(out, "payload"), nil
}

// nodeDenied reports a node's SYSTEM_RUN_DENIED answer and its reason.
func nodeDenied(err error) (string, bool) {
	te := tools.AsError(err)
	if te == nil || !strings.Contains(te.Message, "SYSTEM_RUN_DENIED") {
		return "", false
	}
	return te.Message, true
}

// runOnNode is exec host=node.
func runOnNode(ctx context.Context, env *tools.Env, p execParams) (any, error) {
	if _, ok := env.Services[nodesService]; !ok {
		return nil, tools.Errorf(tools.CodeUsage, "exec host=node runs through the gateway's node connections, and this exec runs in this process: "+
			"add --remote (with a gateway running: `openclaw serve`)")
	}
	if err := checkEnv(p.Env); err != nil {
		return nil, err
	}
	if p.Background || p.YieldMs != nil || p.PTY {
		return nil, tools.Errorf(tools.CodeInvalidParams, "exec host=node: background, yieldMs and pty are not available on a node (the command runs to its end)")
	}
	t, err := resolveExecNode(ctx, env, execNodeRef(env, p))
	if err != nil {
		return nil, err
	}
	if !t.commands["system.run"] {
		return nil, tools.Errorf(tools.CodeFailed, "exec host=node: node %s cannot run commands: system.run is not in its approved surface (see `openclaw nodes pending`)", first(t.name, t.id))
	}
	timeoutS := float64(conf(env).Int("tools.exec.timeoutSeconds", defaultTimeoutS))
	if p.TimeoutSeconds != nil {
		timeoutS = *p.TimeoutSeconds
	}
	if p.Timeout != nil {
		timeoutS = *p.Timeout
	}
	if timeoutS <= 0 || timeoutS > maxTimeoutS {
		timeoutS = maxTimeoutS
	}
	cmdTimeout := secondsDuration(timeoutS)
	argv, plain := nodeArgv(t.platform, p.Command)
	rawCommand := p.Command
	if plain {
		// The node compares rawCommand with its display form of the argv
		// (`echo 'a b'` is shown and bound as `echo "a b"`).
		rawCommand = policy.DisplayArgv(argv)
	}
	run := map[string]any{"command": argv, "rawCommand": rawCommand, "agentId": env.AgentID(), "timeoutMs": cmdTimeout.Milliseconds()}
	if env.Subject.SessionKey != "" {
		run["sessionKey"] = env.Subject.SessionKey
	}
	if p.Workdir != "" {
		run["cwd"] = p.Workdir // a path on the node, never resolved here
	}
	if len(p.Env) > 0 {
		run["env"] = maps.Clone(p.Env)
	}

	// Phase 1: the node's canonical plan and its policy.
	nodeSec, nodeAsk := "full", "off"
	if t.commands["system.run.prepare"] {
		prep := map[string]any{}
		maps.Copy(prep, run)
		delete(prep, "timeoutMs")
		plan, err := nodeInvoke(ctx, env, t.id, "system.run.prepare", prep, 15*time.Second)
		cfg := conf(env)
		gwOpen := policy.TightestSecurity(cfg.String("tools.exec.security", "full"), p.Security) == "full" &&
			policy.StrictestAsk(cfg.String("tools.exec.ask", "off"), p.Ask) == "off"
		if reason, denied := nodeDenied(err); denied {
			// The node cannot bind an approval to this command (shell
			// syntax around the executable). With nothing to approve on the
			// gateway's side, system.run itself asks the node's approvals.
			if !gwOpen {
				return nil, tools.Errorf(tools.CodeDenied, "exec denied on node %s: %s", first(t.name, t.id), reason)
			}
			err, plan = nil, gjson.Result{}
		}
		if err != nil {
			return nil, err
		}
		if pl := plan.Get("plan"); pl.Exists() {
			// What runs is the node's canonical plan (resolved executable,
			// cwd), as the original forwards it.
			run["systemRunPlan"] = jsonOf(pl)
			if cwd := pl.Get("cwd").String(); cwd != "" {
				run["cwd"] = cwd
			}
			if a := pl.Get("argv"); a.IsArray() && len(a.Array()) > 0 {
				argv = argv[:0:0]
				for _, w := range a.Array() {
					argv = append(argv, w.String())
				}
				run["command"] = argv
				run["rawCommand"] = first(pl.Get("commandPreview").String(), pl.Get("commandText").String(), p.Command)
			}
		}
		nodeSec = first(plan.Get("execPolicy.security").String(), nodeSec)
		nodeAsk = first(plan.Get("execPolicy.ask").String(), nodeAsk)
	}

	// Phase 2: the gateway's policy, tightened by the node's.
	cfg := conf(env)
	sec := policy.TightestSecurity(cfg.String("tools.exec.security", "full"), nodeSec, p.Security)
	ask := policy.StrictestAsk(cfg.String("tools.exec.ask", "off"), nodeAsk, p.Ask)
	if sec == "deny" {
		return nil, tools.Errorf(tools.CodeDenied, "exec denied: host=node security=deny (node %s)", first(t.name, t.id))
	}
	invokeTimeout := cmdTimeout + 10*time.Second
	if ask != "always" {
		out, err := nodeInvoke(ctx, env, t.id, "system.run", run, invokeTimeout)
		if err == nil {
			return nodeRunResult(t, run, out)
		}
		reason, denied := nodeDenied(err)
		// The node's own approvals asking for one: operators decide.
		if denied && strings.Contains(reason, "approval required") {
			sec, ask = policy.TightestSecurity(sec, "allowlist"), policy.StrictestAsk(ask, "on-miss")
		}
		if !denied || !strings.Contains(reason, "approval required") {
			if denied {
				return nil, tools.Errorf(tools.CodeDenied, "exec denied on node %s: %s", first(t.name, t.id), reason).WithDetails(tools.AsError(err).Details)
			}
			return nil, err
		}
	}

	// Phase 3: an operator's approval, then system.run bound to it.
	q, err := approvalQueueOf(env, "exec approval")
	if err != nil {
		return nil, err
	}
	nodeID := t.id
	cwd, _ := run["cwd"].(string)
	rawCommand, _ = run["rawCommand"].(string)
	req := approvalRequest{Command: rawCommand, CommandArgv: argv, Cwd: cwd, Env: maps.Clone(p.Env), Host: "node", NodeID: &nodeID,
		Security: sec, Ask: ask, AgentID: env.AgentID(), SessionKey: env.Subject.SessionKey,
		AllowedDecisions: []string{decisionAllowOnce, decisionAllowAlways, decisionDeny}}
	if ask == "always" || len(p.Env) > 0 {
		req.AllowedDecisions = []string{decisionAllowOnce, decisionDeny}
	}
	approved := func(ctx context.Context, env *tools.Env, a *approval) (any, error) {
		run := maps.Clone(run)
		run["approved"], run["approvalDecision"], run["runId"] = true, a.decision, a.id
		out, err := nodeInvoke(ctx, env, t.id, "system.run", run, invokeTimeout)
		if err != nil {
			return nil, err
		}
		return nodeRunResult(t, run, out)
	}
	if p.AwaitApproval {
		a, err := q.create(req, 0, "deny", false, nil)
		if err != nil {
			return nil, err
		}
		env.Event("exec.approval.pending", map[string]any{"id": a.id, "approveCommand": approveCommand(a.id, req.AllowedDecisions)})
		if err := q.wait(ctx, a); err != nil {
			q.cancel(a, "requester-gone")
			return nil, tools.Errorf(tools.CodeInterrupted, "exec: stopped waiting for approval %s", a.id)
		}
		if a.status != statusAllowed {
			return nil, deniedError(a)
		}
		return approved(ctx, env, a)
	}
	// Nobody waits: an allowing decision runs it under the gateway's
	// lifetime (a task), its result recorded with the approval.
	detached := *env
	detached.Sink = nil
	var self *approval
	onDecision := func(decision string) any {
		if decision != decisionAllowOnce && decision != decisionAllowAlways {
			return map[string]any{"status": "denied"}
		}
		jobs, err := detached.NeedJobs("exec host=node")
		if err != nil {
			return map[string]any{"status": "failed", "error": err.Error()}
		}
		a := self
		info, err := jobs.Start(tools.JobSpec{Kind: "exec", Owner: "node:" + t.id, Run: func(ctx context.Context, sink tools.Sink) (any, error) {
			return approved(ctx, &detached, a)
		}})
		if err != nil {
			return map[string]any{"status": "failed", "error": err.Error()}
		}
		return map[string]any{"status": "running", "taskId": info.ID, "host": "node", "nodeId": t.id}
	}
	a, err := q.create(req, 0, "deny", false, onDecision)
	if err != nil {
		return nil, err
	}
	self = a
	return nil, tools.Errorf(tools.CodePendingApproval,
		"Approval required (id %s, full %s): `%s` (host node %s) needs approval (security=%s ask=%s).\n"+
			"Approve it with: openclaw approvals resolve %s allow-once   (decisions: %s)\n"+
			"Once allowed it runs on the node as a task: follow it with `openclaw tasks list`.",
		a.id[:8], a.id, rawCommand, first(t.name, t.id), sec, ask, a.id, strings.Join(req.AllowedDecisions, ", ")).
		WithDetails(map[string]any{"status": "approval-pending", "approvalId": a.id, "approvalSlug": a.id[:8], "host": "node",
			"nodeId": t.id, "command": p.Command, "cwd": cwd, "env": envOrEmpty(req.Env),
			"approveCommand": approveCommand(a.id, req.AllowedDecisions), "allowedDecisions": req.AllowedDecisions,
			"expiresAtMs": a.expiresAt.UnixMilli()})
}

// nodeRunResult is exec's answer for a node's system.run payload
// {exitCode, timedOut, success, stdout, stderr, error}.
func nodeRunResult(t nodeTarget, run map[string]any, out gjson.Result) (any, error) {
	stdout, stderr := out.Get("stdout").String(), out.Get("stderr").String()
	agg := stdout
	if stderr != "" {
		agg = strings.TrimRight(agg, "\n")
		if agg != "" {
			agg += "\n"
		}
		agg += stderr
	}
	details := map[string]any{"host": "node", "nodeId": t.id, "cwd": run["cwd"], "aggregated": agg,
		"stdout": stdout, "stderr": stderr, "success": out.Get("success").Bool(), "timedOut": out.Get("timedOut").Bool()}
	if n := t.name; n != "" {
		details["node"] = n
	}
	if out.Get("truncated").Bool() {
		details["truncated"] = true
	}
	text := strings.TrimSpace(agg)
	if text == "" {
		text = "(no output)"
	}
	if out.Get("timedOut").Bool() {
		details["status"] = "failed"
		details["exitCode"] = jsonOf(out.Get("exitCode"))
		return nil, tools.Errorf(tools.CodeTimeout, "%s\n\nCommand timed out on node %s", text, first(t.name, t.id)).WithDetails(details)
	}
	code := out.Get("exitCode")
	details["status"] = "completed"
	details["exitCode"] = jsonOf(code)
	if code.Exists() && code.Type == gjson.Number && code.Int() != 0 {
		text += fmt.Sprintf("\n\n(Command exited with code %d)", code.Int())
	}
	if e := out.Get("error").String(); e != "" && !code.Exists() {
		details["status"] = "failed"
		return nil, tools.Errorf(tools.CodeFailed, "%s\n\n%s", text, e).WithDetails(details)
	}
	return tools.TextResult(text, details), nil
}

func jsonOf(r gjson.Result) any {
	if !r.Exists() {
		return nil
	}
	var v any
	_ = json.Unmarshal([]byte(r.Raw), &v)
	return v
}

func first(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
