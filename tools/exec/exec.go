// Package exectool is the runtime tool family: `exec` (alias `bash`) runs a
// shell command in its own process group, in the foreground in the calling
// process or, inside the gateway, as a background session that `process`
// manages (list, poll, log, write, kill). Every way a command ends — exit,
// timeout, Ctrl-C, kill, gateway shutdown — ends its whole group.
package exectool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/sandbox"
	"github.com/openclaw-go/openclaw/tools"
)

const (
	defaultYieldMs   = 10000
	minYieldMs       = 10
	maxYieldMs       = 120000
	defaultTimeoutS  = 1800
	outputEventName  = "exec.output"
	runningHintTools = "process (list/poll/log/write/send-keys/submit/paste/kill/clear/remove)"
)

func init() {
	tools.Register(&tools.Action{
		Tool:        "exec",
		Destructive: true,
		OpenWorld:   true,
		Summary:     "Run a shell command (own process group; timeout, output caps, optional PTY or background session)",
		Description: "Runs `$SHELL -c COMMAND` in the workspace (created on the gateway if missing; a local run " +
			"without one uses the current directory). Output is capped (200000 bytes kept, the tail) " +
			"and the whole process group is killed on timeout (default 1800 s), Ctrl-C or kill. " +
			"With --background --remote or after --yield-ms --remote the command continues in the gateway " +
			"(`openclaw serve`), where background sessions live, and `openclaw process` follows it.",
		Examples: []string{
			"openclaw exec --command 'echo hi'",
			`openclaw exec --params '{"command":"sleep 5","timeout":1}'`,
			"openclaw exec --command 'npm run build' --background --remote",
		},
		Schema: execSchema,
		Scope:  tools.ScopeWrite,
		Where:  tools.Local,
		Run:    tools.Typed(runExec),
		Render: renderExec,
	})
}

func conf(env *tools.Env) *config.Config {
	if env.Config == nil {
		return config.Empty()
	}
	return env.Config
}

func runExec(ctx context.Context, env *tools.Env, p execParams) (any, error) {
	if strings.TrimSpace(p.Command) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Provide a command to start.")
	}
	if strings.Contains(p.Command, "/approve ") || strings.Contains(p.Command, "openclaw channels login") {
		return nil, tools.Errorf(tools.CodeDenied, "exec cannot run /approve or `openclaw channels login` commands.")
	}
	// A caller other than this machine's user (an operator's tools.invoke,
	// an agent turn, an MCP client) runs only for a configured agent: an id
	// nobody configured is refused, never resolved to a looser policy. The
	// local user is not refused (a node host runs the gateway's agents,
	// which its own config need not list): the approvals file still never
	// resolves an unlisted agent looser than main (policy.Resolve).
	if !env.Subject.IsUser() {
		if err := tools.CheckAgentID(conf(env), env.Subject.AgentID); err != nil {
			return nil, err
		}
	}
	if isNodeHost(env, p) {
		return runOnNode(ctx, env, p) // host_node.go
	}
	sbx, err := sandboxFor(env, p) // sandbox.go: nil runs on this machine
	if err != nil {
		return nil, err
	}
	if err := checkHost(env, p); err != nil {
		return nil, err
	}
	if err := checkEnv(p.Env); err != nil {
		return nil, err
	}
	if err := checkTimeoutParam("timeout", p.Timeout); err != nil {
		return nil, err
	}
	if err := checkTimeoutParam("timeoutSeconds", p.TimeoutSeconds); err != nil {
		return nil, err
	}
	var cwd, warn string
	var plan *sandbox.Plan
	if sbx != nil {
		if plan, err = planSandbox(env, sbx, p); err != nil {
			return nil, err
		}
		cwd, warn = plan.Workdir, plan.Warn
	} else {
		cwd, warn = resolveWorkdir(env, p.Workdir)
	}
	if !p.approved {
		need, err := checkApproval(ctx, env, p, cwd)
		if err != nil {
			return nil, err
		}
		if need != nil {
			q, qerr := approvalQueueOf(env, "exec approval")
			if qerr != nil {
				return nil, localApprovalError(p, cwd, need)
			}
			return gatewayApproval(ctx, env, q, p, cwd, need)
		}
	}
	cfg := conf(env)
	timeout := float64(cfg.Int("tools.exec.timeoutSeconds", cfg.Int("tools.exec.timeoutSec", defaultTimeoutS)))
	timeout = min(timeout, maxTimeoutS)
	if p.TimeoutSeconds != nil {
		timeout = *p.TimeoutSeconds
	}
	if p.Timeout != nil {
		timeout = *p.Timeout
	}

	// Background needs the gateway's session registry; in the CLI without
	// one, an explicit background request fails (exit 2: it is the route,
	// not the gateway, that is missing; a gateway may well be running) and
	// the default yield does not apply: the command simply runs to the end.
	var reg *registry
	if svc, err := env.Service(serviceName, "background exec"); err == nil {
		reg, _ = svc.(*registry)
	} else if p.Background || p.YieldMs != nil {
		return nil, tools.Errorf(tools.CodeUsage,
			"background sessions live on the gateway, and this exec runs in this process: add --remote "+
				"(with a gateway running: `openclaw serve`)")
	}
	yield := time.Duration(-1)
	if reg != nil {
		ms := float64(cfg.Int("tools.exec.backgroundMs", defaultYieldMs))
		if p.YieldMs != nil {
			ms = *p.YieldMs
		}
		ms = min(max(ms, minYieldMs), maxYieldMs)
		if p.Background {
			ms = 0
		}
		yield = time.Duration(ms) * time.Millisecond
	}

	sp := spec{command: p.Command, dir: cwd, env: childEnv(p.Env), pty: p.PTY, stdin: reg != nil}
	if plan != nil {
		sp.argv, sp.dir, sp.files, sp.env = plan.Argv, plan.Dir, plan.Files, sandbox.Env(p.Env, shell(), p.PTY)
		defer func() { plan.Close() }()
	}
	pr, err := start(sp, aggCap(), pendCap())
	if err != nil && p.PTY {
		warn = joinWarn(warn, fmt.Sprintf("Warning: PTY spawn failed (%v); retrying without PTY for `%s`.", err, p.Command))
		sp.pty = false
		if plan != nil {
			plan.Close()
			if plan, err = planSandbox(env, sbx, p, false); err != nil {
				return nil, err
			}
			sp.argv, sp.files = plan.Argv, plan.Files
		}
		pr, err = start(sp, aggCap(), pendCap())
	}
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "exec: %v", err)
	}
	var timer *time.Timer
	if timeout > 0 {
		timer = time.AfterFunc(secondsDuration(timeout), func() {
			pr.kill(context.Background(), "timeout")
		})
	}
	stopTimer := func() {
		if timer != nil {
			timer.Stop()
		}
	}

	s := &session{agent: env.AgentID(), command: p.Command, cwd: cwd, p: pr, startedAt: pr.started}
	if reg != nil {
		err := reg.add(s)
		if err == nil {
			err = supervise(reg.jobs, s, reg.persist)
			if err != nil {
				reg.drop(s.id)
			}
		}
		if err != nil {
			stopTimer()
			pr.kill(context.Background(), "shutdown")
			return nil, err
		}
	}

	// Live output goes to the caller's sink until the command is backgrounded.
	var live atomic.Bool
	live.Store(env.Sink != nil)
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		if env.Sink == nil {
			return
		}
		streamOutput(env, pr, &live)
	}()

	// The CLI (no gateway) turns Ctrl-C and SIGTERM into killing the group
	// and exit 130; inside the gateway the request context does that.
	if reg == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
	}

	if p.Background {
		s.mu.Lock()
		s.backgrounded = true
		s.mu.Unlock()
		live.Store(false)
		return runningResult(s, warn), nil
	}
	var yieldC <-chan time.Time
	if yield >= 0 {
		t := time.NewTimer(yield)
		defer t.Stop()
		yieldC = t.C
	}
	select {
	case <-pr.done:
	case <-yieldC:
		s.mu.Lock()
		s.backgrounded = true
		s.mu.Unlock()
		live.Store(false)
		return runningResult(s, warn), nil
	case <-ctx.Done():
		why := "abort"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "deadline" // the caller's own time limit (CLI --timeout, a request deadline)
		}
		pr.kill(context.Background(), why)
	}
	stopTimer()
	<-streamed
	if reg != nil {
		reg.drop(s.id)
	}
	return finalResult(s, warn, timeout)
}

// Live output is paced: at most one exec.output event per liveEvery, of at
// most liveChunkMax bytes (the newest; the rest is counted as skipped).
// A command printing gigabytes then costs the gateway and the caller's
// connection a few hundred KB/s, not a queue of frames as fast as the
// pipe fills.
const (
	liveEvery    = 50 * time.Millisecond
	liveChunkMax = 16 << 10
)

// streamOutput reports new output as exec.output events while live is set.
func streamOutput(env *tools.Env, pr *proc, live *atomic.Bool) {
	var sent int64
	pace := time.NewTicker(liveEvery)
	defer pace.Stop()
	for {
		ch := pr.out.wait()
		chunk, skipped, total := pr.out.sinceCapped(sent, liveChunkMax)
		sent = total
		if (chunk != "" || skipped > 0) && live.Load() {
			if skipped > 0 {
				chunk = fmt.Sprintf("[… %d bytes of output skipped …]\n", skipped) + chunk
			}
			env.Event(outputEventName, map[string]any{"data": chunk})
		}
		select {
		case <-ch:
		case <-pr.done:
			if pr.out.totalBytes() == sent {
				return
			}
		}
		if !live.Load() {
			return
		}
		select {
		case <-pace.C:
		case <-pr.done:
		}
	}
}

func joinWarn(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func withWarn(warn, text string) string {
	if warn == "" {
		return text
	}
	return warn + "\n\n" + text
}

// runningResult is the answer for a command that continues in the background.
func runningResult(s *session, warn string) *tools.Result {
	agg, _ := s.p.out.aggregated()
	text := fmt.Sprintf("Command still running (session %s, pid %d). Use %s for follow-up.", s.id, s.p.pid, runningHintTools)
	return tools.TextResult(withWarn(warn, text), map[string]any{
		"status": "running", "sessionId": s.id, "taskId": s.taskID, "pid": s.p.pid,
		"startedAt": s.startedAt.UnixMilli(), "cwd": s.cwd, "tail": lastChars(agg, tailChars),
	})
}

// finalResult is the answer for a command that ended in the foreground:
// a result when it exited by itself, an error (with the same details)
// when it timed out, was aborted or died by a signal.
func finalResult(s *session, warn string, timeout float64) (any, error) {
	st := s.p.state()
	agg, truncated := s.p.out.aggregated()
	out := strings.TrimSpace(agg)
	details := map[string]any{
		"durationMs": st.duration.Milliseconds(), "aggregated": agg, "cwd": s.cwd, "pid": s.p.pid,
		"totalBytes": s.p.out.totalBytes(),
	}
	if truncated {
		details["truncated"] = true
	}
	if st.exitCode != nil && st.killedBy == "" {
		details["status"] = "completed"
		details["exitCode"] = *st.exitCode
		text := out
		if text == "" {
			text = "(no output)"
		}
		if *st.exitCode != 0 {
			text += fmt.Sprintf("\n\n(Command exited with code %d)", *st.exitCode)
		}
		return tools.TextResult(withWarn(warn, text), details), nil
	}
	details["status"] = "failed"
	details["exitCode"] = nil
	if st.exitCode != nil {
		details["exitCode"] = *st.exitCode
	}
	if st.signal != "" {
		details["signal"] = st.signal
	}
	details["timedOut"] = st.killedBy == "timeout" || st.killedBy == "deadline"
	code := tools.CodeFailed
	var reason string
	switch {
	case st.killedBy == "timeout":
		code, reason = tools.CodeTimeout, fmt.Sprintf("Command timed out after %s seconds (process group killed)", trimFloat(timeout))
	case st.killedBy == "deadline":
		code, reason = tools.CodeTimeout, "Command timed out: the caller's time limit passed (process group killed)"
	case st.killedBy == "abort":
		code, reason = tools.CodeInterrupted, "Command aborted: interrupted (process group killed)"
	case st.killedBy == "shutdown":
		code, reason = tools.CodeInterrupted, "Command aborted: the gateway is stopping (process group killed)"
	case st.killedBy == "cancel":
		code, reason = tools.CodeInterrupted, "Command aborted: its task was cancelled or the gateway is stopping (process group killed)"
	case st.signal != "":
		reason = "Command aborted by signal " + st.signal
	default:
		reason = "Command aborted before exit code was captured"
	}
	text := reason
	if out != "" {
		text = out + "\n\n" + reason
	}
	return nil, tools.Errorf(code, "%s", withWarn(warn, text)).WithDetails(details)
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// aggCap and pendCap honour the original's env overrides (clamped).
func aggCap() int {
	return envInt([]string{"OPENCLAW_BASH_MAX_OUTPUT_CHARS", "PI_BASH_MAX_OUTPUT_CHARS"}, aggregateCap, 1000, aggregateCap)
}

func pendCap() int {
	return min(envInt([]string{"OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS"}, pendingCap, 1000, aggregateCap), aggCap())
}

func envInt(names []string, def, lo, hi int) int {
	for _, n := range names {
		var v int
		if _, err := fmt.Sscan(os.Getenv(n), &v); err == nil && v > 0 {
			return min(max(v, lo), hi)
		}
	}
	return def
}
