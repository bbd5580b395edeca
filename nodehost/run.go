package nodehost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// system.run and system.run.prepare run commands through the exec family
// (tools.Invoke of `exec`) in this node's state dir, so this machine's
// exec approvals decide: security deny refuses, allowlist runs only what
// the allowlist vouches for, and a command that needs an operator's
// approval is refused with SYSTEM_RUN_DENIED: approval required. The
// gateway then asks its operators (exec.approval.request, with the plan
// system.run.prepare returned) and sends system.run again with the
// decision and that plan; the node checks that the plan is the command
// being run and that its own policy has not changed since, and runs it.

// runParams are system.run's and system.run.prepare's params (§7.3).
type runParams struct {
	Command              []string          `json:"command"`
	RawCommand           *string           `json:"rawCommand"`
	Cwd                  *string           `json:"cwd"`
	Env                  map[string]string `json:"env"`
	AgentID              *string           `json:"agentId"`
	SessionKey           *string           `json:"sessionKey"`
	Security             *string           `json:"security"`
	Ask                  *string           `json:"ask"`
	StrictInlineEval     *bool             `json:"strictInlineEval"`
	SystemRunPlan        json.RawMessage   `json:"systemRunPlan"`
	TimeoutMs            *int64            `json:"timeoutMs"`
	Approved             *bool             `json:"approved"`
	ApprovalDecision     *string           `json:"approvalDecision"`
	ApprovalSource       *string           `json:"approvalSource"`
	RunID                *string           `json:"runId"`
	SuppressNotifyOnExit *bool             `json:"suppressNotifyOnExit"`
	NeedsScreenRecording *bool             `json:"needsScreenRecording"`
}

// runPlan is the canonical plan system.run.prepare returns and an
// approved system.run carries back (systemRunPlan).
type runPlan struct {
	Argv               []string        `json:"argv"`
	Cwd                *string         `json:"cwd"`
	CommandText        string          `json:"commandText"`
	CommandPreview     *string         `json:"commandPreview"`
	AgentID            *string         `json:"agentId"`
	SessionKey         *string         `json:"sessionKey"`
	MutableFileOperand *fileOperand    `json:"mutableFileOperand,omitempty"`
	PolicySnapshot     *policySnapshot `json:"policySnapshot,omitempty"`
}

// fileOperand pins the executable an approval was given for: a binary
// swapped after the approval is refused.
type fileOperand struct {
	ArgvIndex int    `json:"argvIndex"`
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
}

// maxHashBytes bounds the executable hashed for a plan.
const maxHashBytes = 256 << 20

func nullable(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// checkRawCommand: rawCommand, when given, must be the argv's display form
// (or a shell wrapper's inline script).
func checkRawCommand(p runParams) error {
	raw := nullable(p.RawCommand)
	if raw == "" {
		return nil
	}
	if raw == formatExecCommand(p.Command) {
		return nil
	}
	if payload, ok := shellPayload(p.Command); ok && raw == strings.TrimSpace(payload) {
		return nil
	}
	return nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: rawCommand does not match command")
}

func (h *Host) loadApprovals() (*policy.ExecApprovals, error) {
	doc, err := approvalsfile.Load(approvalsfile.Path(h.opts.StateDir))
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "%v", err)
	}
	return doc, nil
}

// runPrepare is system.run.prepare: the plan (argv with its executable
// pinned to a real path when an approval will bind to it, the real cwd,
// the display text), this node's exec policy and what allow-always would
// store.
func (h *Host) runPrepare(ctx context.Context, env *tools.Env, p runParams) (any, error) {
	if err := checkRawCommand(p); err != nil {
		return nil, err
	}
	doc, err := h.loadApprovals()
	if err != nil {
		return nil, err
	}
	agent := nullable(p.AgentID)
	sec, ask := h.effectivePolicy(doc, agent)
	bind := p.Security == nil || p.Ask == nil ||
		policy.TightestSecurity(sec, nullable(p.Security)) != "full" || policy.StrictestAsk(ask, nullable(p.Ask)) != "off" ||
		(p.StrictInlineEval != nil && *p.StrictInlineEval)
	cwd := nullable(p.Cwd)
	if cwd == "" {
		cwd = h.opts.Workdir
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return nil, nodeErrorf("INVALID_REQUEST", "SYSTEM_RUN_DENIED: working directory does not exist or is inaccessible")
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, nodeErrorf("INVALID_REQUEST", "SYSTEM_RUN_DENIED: working directory does not exist or is inaccessible")
	}
	argv := slices.Clone(p.Command)
	payload, wrapped := shellPayload(argv)
	coverage := map[string]any{"complete": false, "patterns": []any{}}
	var operand *fileOperand
	if bind && !wrapped {
		exe := resolveExecutable(argv[0], real)
		if exe == "" {
			return nil, nodeErrorf("INVALID_REQUEST", "SYSTEM_RUN_DENIED: approval requires a stable executable path")
		}
		argv[0] = exe
		sum, err := hashFile(exe)
		if err != nil {
			return nil, nodeErrorf("INVALID_REQUEST", "SYSTEM_RUN_DENIED: approval requires a stable executable path (%v)", err)
		}
		operand = &fileOperand{ArgvIndex: 0, Path: exe, SHA256: sum}
		coverage = map[string]any{"complete": true, "patterns": []any{map[string]any{"pattern": exe}}}
	}
	text := formatExecCommand(argv)
	var preview *string
	if wrapped && strings.TrimSpace(payload) != text {
		preview = strPtr(strings.TrimSpace(payload))
	}
	snap := policySnapshotOf(doc, agent)
	plan := runPlan{Argv: argv, Cwd: &real, CommandText: text, CommandPreview: preview, AgentID: strPtr(agent),
		SessionKey: strPtr(nullable(p.SessionKey)), MutableFileOperand: operand, PolicySnapshot: &snap}
	return map[string]any{"plan": plan, "execPolicy": map[string]string{"security": sec, "ask": ask}, "allowAlwaysCoverage": coverage}, nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashBytes)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runResult is system.run's payload, the original's shape.
type runResult struct {
	ExitCode *int    `json:"exitCode"`
	TimedOut bool    `json:"timedOut"`
	Success  bool    `json:"success"`
	Stdout   string  `json:"stdout"`
	Stderr   string  `json:"stderr"`
	Error    *string `json:"error"`
}

// execution is one system.run's identity for its node events.
type execution struct {
	sessionKey, runID, commandText string
	suppressNotify                 bool
}

func (h *Host) denied(ctx context.Context, x execution, reason, message, code string) error {
	h.sendEvent(ctx, "exec.denied", map[string]any{"sessionKey": x.sessionKey, "runId": x.runID, "host": "node",
		"command": x.commandText, "reason": reason, "suppressNotifyOnExit": x.suppressNotify})
	if code == "" {
		code = "SYSTEM_RUN_DENIED"
	}
	return nodeErrorf(code, "%s", message)
}

// runSystemRun is system.run.
func (h *Host) runSystemRun(ctx context.Context, env *tools.Env, p runParams) (any, error) {
	if len(p.Command) == 0 {
		return nil, nodeErrorf("INVALID_REQUEST", "command required")
	}
	if err := checkRawCommand(p); err != nil {
		return nil, err
	}
	text := formatExecCommand(p.Command)
	x := execution{sessionKey: nullable(p.SessionKey), runID: nullable(p.RunID), commandText: text,
		suppressNotify: p.SuppressNotifyOnExit != nil && *p.SuppressNotifyOnExit}
	if x.sessionKey == "" {
		x.sessionKey = "node"
	}
	if x.runID == "" {
		x.runID = uuid.NewString()
	}
	agent := nullable(p.AgentID)
	source := nullable(p.ApprovalSource)
	decision := nullable(p.ApprovalDecision)
	switch source {
	case "", "ask-fallback":
	case "auto-review":
		return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: approvalSource auto-review is not supported by this node host")
	default:
		return nil, nodeErrorf("INVALID_REQUEST", "approvalSource invalid")
	}
	if decision != "" && decision != "allow-once" && decision != "allow-always" {
		return nil, nodeErrorf("INVALID_REQUEST", "approvalDecision invalid")
	}
	explicit := (p.Approved != nil && *p.Approved) || decision != ""
	if source != "" && (p.Approved != nil || p.ApprovalDecision != nil) {
		return nil, nodeErrorf("INVALID_REQUEST", "approvalSource cannot be combined with explicit approval")
	}
	var plan *runPlan
	if len(p.SystemRunPlan) > 0 && string(p.SystemRunPlan) != "null" {
		plan = &runPlan{}
		if err := json.Unmarshal(p.SystemRunPlan, plan); err != nil || len(plan.Argv) == 0 {
			return nil, nodeErrorf("INVALID_REQUEST", "systemRunPlan invalid")
		}
	}
	cwd := nullable(p.Cwd)
	if explicit || source != "" {
		if plan == nil || !slices.Equal(plan.Argv, p.Command) || plan.CommandText != text || nullable(plan.Cwd) != cwd ||
			nullable(plan.AgentID) != agent || nullable(plan.SessionKey) != nullable(p.SessionKey) {
			msg := "explicit approval requires matching systemRunPlan"
			if source != "" {
				msg = "approvalSource requires matching systemRunPlan"
			}
			return nil, nodeErrorf("INVALID_REQUEST", "%s", msg)
		}
		if plan.PolicySnapshot == nil {
			return nil, nodeErrorf("INVALID_REQUEST", "delayed approval requires a prepared policy snapshot")
		}
	}
	if p.NeedsScreenRecording != nil && *p.NeedsScreenRecording {
		return nil, h.denied(ctx, x, "permission:screenRecording", "PERMISSION_MISSING: screenRecording", "")
	}
	if cwd != "" {
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			return nil, h.denied(ctx, x, "cwd-unavailable", "SYSTEM_RUN_DENIED: working directory does not exist or is inaccessible", "")
		}
	}
	doc, err := h.loadApprovals()
	if err != nil {
		return nil, err
	}
	sec, _ := h.effectivePolicy(doc, agent)
	if plan != nil && (explicit || source != "") && !plan.PolicySnapshot.current(policySnapshotOf(doc, agent)) {
		return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: exec approval policy changed; request approval again", "")
	}
	if sec == "deny" {
		return nil, h.denied(ctx, x, "security=deny", "SYSTEM_RUN_DISABLED: security=deny", "")
	}
	if plan != nil && plan.MutableFileOperand != nil && (explicit || source != "") {
		op := plan.MutableFileOperand
		if op.ArgvIndex < 0 || op.ArgvIndex >= len(p.Command) || p.Command[op.ArgvIndex] != op.Path {
			return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: approval missing script operand binding", "")
		}
		if sum, err := hashFile(op.Path); err != nil || sum != op.SHA256 {
			return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: the approved executable changed since it was approved; request approval again", "")
		}
	}

	runEnv := env
	var cleanup func()
	switch {
	case explicit:
		// An operator allowed exactly this command: it runs once with the
		// approval standing in for the ask (security deny was refused
		// above); allow-always also stores its executable here.
		if decision == "allow-always" {
			if err := h.allowAlways(ctx, agent, p.Command, cwd, text); err != nil {
				return nil, h.denied(ctx, x, "approval-state-write-failed", "SYSTEM_RUN_DENIED: approval state could not be persisted", "")
			}
		}
		runEnv, cleanup, err = h.overrideEnv(env, doc, "full", "off")
	case source == "ask-fallback":
		// Nobody could answer: askFallback decides, without asking.
		fb := policySnapshotOf(doc, agent).AskFallback
		fsec := policy.TightestSecurity(sec, fb)
		if fsec == "deny" {
			return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: approval required (askFallback=deny)", "")
		}
		runEnv, cleanup, err = h.overrideEnv(env, doc, fsec, "off")
	}
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "%v", err)
	}
	if cleanup != nil {
		defer cleanup()
	}
	return h.execRun(ctx, runEnv, x, p, agent)
}

// execRun invokes the exec family and turns its answer into system.run's.
func (h *Host) execRun(ctx context.Context, env *tools.Env, x execution, p runParams, agent string) (any, error) {
	// host gateway: the command runs on this machine whatever
	// tools.exec.host says here (never relayed on from a node).
	args := map[string]any{"command": shellLine(p.Command), "host": "gateway"}
	if c := nullable(p.Cwd); c != "" {
		args["workdir"] = c
	}
	if len(p.Env) > 0 {
		args["env"] = p.Env
	}
	if p.TimeoutMs != nil && *p.TimeoutMs > 0 {
		args["timeout"] = float64(*p.TimeoutMs) / 1000
	}
	e := *env
	e.Subject.AgentID = agent
	out, err := invokeTool(ctx, &e, "exec", "", args)
	var res runResult
	if err != nil {
		te := failure.AsError(err)
		d := detailsOf(te)
		switch {
		case ctx.Err() != nil:
			return nil, toNodeError(ctx, err) // cancelled, or the invocation's deadline passed
		case te.Code == failure.CodePendingApproval:
			return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: approval required", "")
		case te.Code == failure.CodeDenied && strings.Contains(te.Message, "allowlist miss"):
			return nil, h.denied(ctx, x, "allowlist-miss", "SYSTEM_RUN_DENIED: allowlist miss", "")
		case te.Code == failure.CodeDenied && strings.Contains(te.Message, "security=deny"):
			return nil, h.denied(ctx, x, "security=deny", "SYSTEM_RUN_DISABLED: security=deny", "")
		case te.Code == failure.CodeDenied && strings.HasPrefix(te.Message, "Security Violation"):
			return nil, nodeErrorf("INVALID_REQUEST", "SYSTEM_RUN_DENIED: environment override rejected (%s)", te.Message)
		case te.Code == failure.CodeDenied:
			return nil, h.denied(ctx, x, "approval-required", "SYSTEM_RUN_DENIED: "+te.Message, "")
		case te.Code == failure.CodeInvalidParams:
			return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: %s", te.Message)
		case d.Get("status").String() == "failed":
			res.Stdout = outputOf(d)
			res.TimedOut = d.Get("timedOut").Bool()
			if res.TimedOut {
				code := 124
				res.ExitCode = &code
			} else if ec := d.Get("exitCode"); ec.Exists() && ec.Type == gjson.Number {
				code := int(ec.Int())
				res.ExitCode = &code
			}
			if !res.TimedOut {
				msg := te.Message
				if i := strings.LastIndex(msg, "\n\n"); i >= 0 {
					msg = msg[i+2:]
				}
				res.Error = &msg
			}
		default:
			return nil, err
		}
	} else {
		d := gjson.GetBytes(out, "details")
		res.Stdout = outputOf(d)
		code := int(d.Get("exitCode").Int())
		res.ExitCode = &code
		res.Success = code == 0
	}
	h.sendEvent(ctx, "exec.finished", map[string]any{"sessionKey": x.sessionKey, "runId": x.runID, "host": "node",
		"command": x.commandText, "exitCode": res.ExitCode, "timedOut": res.TimedOut, "success": res.Success,
		"output": eventOutput(res), "suppressNotifyOnExit": x.suppressNotify})
	return res, nil
}

func detailsOf(te *failure.Error) gjson.Result {
	if te.Details == nil {
		return gjson.Result{}
	}
	b, err := json.Marshal(te.Details)
	if err != nil {
		return gjson.Result{}
	}
	return gjson.ParseBytes(b)
}

// outputOf is the command's output (stdout and stderr interleaved, as the
// exec family captures it), marked when its head was cut.
func outputOf(d gjson.Result) string {
	s := d.Get("aggregated").String()
	if d.Get("truncated").Bool() {
		s = "... (truncated) " + s
	}
	return s
}

// eventOutput is exec.finished's output: the tail (20000 characters) of
// what the command printed.
func eventOutput(r runResult) string {
	parts := []string{}
	for _, s := range []string{r.Stdout, r.Stderr} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if r.Error != nil && *r.Error != "" {
		parts = append(parts, *r.Error)
	}
	s := strings.TrimSpace(strings.Join(parts, "\n"))
	const tail = 20000
	if r := []rune(s); len(r) > tail {
		s = "... (truncated) " + string(r[len(r)-tail:])
	}
	return s
}

// allowAlways stores the approved command's executables in this node's
// allowlist (what allow-always means on the exec family: the programs,
// not their arguments), as the original node host persists them: the
// argv's program, or for a shell's inline script (`sh -lc "a | b"`) each
// segment's program behind transparent wrappers. A script the analysis
// cannot vouch for (substitutions, redirections, a refused wrapper such
// as sudo) stores nothing: it will be asked again.
func (h *Host) allowAlways(ctx context.Context, agent string, argv []string, cwd, text string) error {
	if cwd == "" {
		cwd = h.opts.Workdir
	}
	var exes []string
	if payload, wrapped := shellPayload(argv); wrapped {
		segs, ok := policy.AnalyzeWords(payload)
		if !ok {
			return nil
		}
		for _, seg := range segs {
			start, refused := policy.Unwrap(seg, func(name string) bool {
				p := resolveExecutable(name, cwd)
				return p != "" && slices.Contains([]string{"/bin", "/usr/bin", "/sbin", "/usr/sbin"}, filepath.Dir(p))
			})
			if refused != "" || start >= len(seg.Argv) {
				return nil
			}
			exe := resolveExecutable(seg.Argv[start], cwd)
			if exe == "" {
				return nil
			}
			exes = append(exes, exe)
		}
	} else if exe := resolveExecutable(argv[0], cwd); exe != "" {
		exes = append(exes, exe)
	} else {
		return errors.New("executable not found")
	}
	if agent == "" {
		agent = "main"
	}
	_, err := approvalsfile.Update(ctx, approvalsfile.Path(h.opts.StateDir), func(s *approvalsfile.Snapshot) error {
		a := s.Doc.Agent(agent)
		for _, exe := range exes {
			if slices.ContainsFunc(a.Allowlist, func(e policy.AllowlistEntry) bool { return e.Pattern == exe && e.ArgPattern == "" }) {
				continue
			}
			a.Allowlist = append(a.Allowlist, policy.AllowlistEntry{Pattern: exe, Source: "allow-always",
				LastUsedAt: nowMs(), LastUsedCommand: text, LastResolvedPath: exe})
		}
		return nil
	})
	return err
}

// overrideEnv is env for one run whose policy was settled by an approval
// (or the ask fallback): a private state dir holding a copy of this
// node's approvals with security and ask set to what the decision allows,
// and the config's tools.exec.security/ask set the same, so the exec
// family runs exactly this command without asking again. The node's own
// file is not touched; the private dir is removed after the run.
func (h *Host) overrideEnv(env *tools.Env, doc *policy.ExecApprovals, sec, ask string) (*tools.Env, func(), error) {
	tmpRoot := filepath.Join(h.opts.StateDir, "tmp")
	if err := os.MkdirAll(tmpRoot, 0o700); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(tmpRoot, "approved-run-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	cp := policy.NewExecApprovals()
	b, _ := json.Marshal(doc)
	_ = json.Unmarshal(b, cp)
	cp.Normalize()
	cp.Defaults.Security, cp.Defaults.Ask = sec, ask
	for _, a := range cp.Agents {
		a.Security, a.Ask = sec, ask
	}
	if _, err := approvalsfile.Update(context.Background(), approvalsfile.Path(dir), func(s *approvalsfile.Snapshot) error {
		s.Doc = cp
		return nil
	}); err != nil {
		cleanup()
		return nil, nil, err
	}
	cfg, err := withSettings(h.cfg, map[string]any{"tools.exec.security": sec, "tools.exec.ask": ask})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	e := *env
	e.StateDir, e.Config = dir, cfg
	return &e, cleanup, nil
}

// withSettings is a copy of cfg with some keys set (the loaded file is
// never changed).
func withSettings(cfg *config.Config, set map[string]any) (*config.Config, error) {
	doc := map[string]any{}
	if cfg != nil && cfg.Doc != nil {
		b, err := json.Marshal(cfg.Doc)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if err := config.SetPath(doc, k, set[k]); err != nil {
			return nil, err
		}
	}
	c := &config.Config{Doc: doc, Exists: cfg != nil && cfg.Exists}
	if cfg != nil {
		c.Path = cfg.Path
	}
	return c, nil
}
