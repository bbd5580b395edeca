package exectool

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// approvalNeed says why a command needs an operator's approval before it
// runs, and what the request offers.
type approvalNeed struct {
	sec, ask, fallback string
	// matched: the allowlist vouched for every segment (ask=always asked
	// anyway); missed are the executables that matched nothing.
	matched bool
	missed  []string
	// hasEnv: the call sets env overrides. The allowlist stores
	// executables only, so it cannot bind them: allow-always is not
	// offered (a later run with other env must be asked again).
	hasEnv bool
}

// allowedDecisions: allow-always needs executables to add to the allowlist
// (shell syntax the allowlist cannot vouch for, or ask=always, has none
// that would change the next answer).
func (n *approvalNeed) allowedDecisions() []string {
	if n.ask == "always" || len(n.missed) == 0 || n.hasEnv {
		return []string{decisionAllowOnce, decisionDeny}
	}
	return []string{decisionAllowOnce, decisionAllowAlways, decisionDeny}
}

// checkApproval applies the exec approval policy (spec §1.8): security is
// the tightest of config, the approvals file and the call; ask the
// strictest. deny refuses; allowlist runs only commands whose every
// segment matches an entry or is a safe bin; a miss (or ask=always) with
// ask≠off needs an approval: the returned need is non-nil.
func checkApproval(ctx context.Context, env *tools.Env, p execParams, cwd string) (*approvalNeed, error) {
	cfg := conf(env)
	doc, err := approvalsfile.Load(approvalsfile.Path(env.StateDir))
	if err != nil {
		return nil, tools.Errorf(tools.CodeDenied, "exec denied: %v", err)
	}
	fileSec, fileAsk, allow := doc.Effective(env.AgentID())
	sec := policy.TightestSecurity(cfg.String("tools.exec.security", "full"), fileSec, p.Security)
	ask := policy.StrictestAsk(cfg.String("tools.exec.ask", "off"), fileAsk, p.Ask)
	if sec == "deny" {
		return nil, tools.Errorf(tools.CodeDenied, "exec denied: host=gateway security=deny")
	}
	if sec == "full" && ask == "off" {
		return nil, nil
	}
	matched, missed := true, []string{}
	var envMissed []string
	if sec == "allowlist" {
		var bins []string
		_ = cfg.Decode("tools.exec.safeBins", &bins)
		matched, missed, envMissed = allowlisted(env, bins, p.Command, cwd, allow, slices.Sorted(maps.Keys(p.Env)))
	}
	if matched && ask != "always" {
		return nil, nil
	}
	if ask == "off" {
		msg := "exec denied: allowlist miss"
		if len(envMissed) > 0 {
			msg += fmt.Sprintf(" (environment override %s: the program's allowlist entry must name it: openclaw approvals allow PATTERN --env KEY)",
				strings.Join(envMissed, ", "))
		}
		return nil, tools.Errorf(tools.CodeDenied, "%s", msg).
			WithDetails(map[string]any{"command": p.Command, "missed": missed, "envMissed": nonNilList(envMissed)})
	}
	if missed == nil {
		missed = []string{}
	}
	return &approvalNeed{sec: sec, ask: ask, fallback: askFallback(doc, env.AgentID()), matched: matched, missed: missed,
		hasEnv: len(p.Env) > 0 || len(envMissed) > 0}, nil
}

func nonNilList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// askFallback is the agent's askFallback as the file resolves it
// (policy.Resolve), else deny.
func askFallback(doc *policy.ExecApprovals, agent string) string {
	if fb := doc.Resolve(agent).AskFallback; fb != "" {
		return fb
	}
	return "deny"
}

// localApprovalError is the answer without a gateway to hold a request:
// exit 8 with the command that allowlists what missed, to run it again.
func localApprovalError(p execParams, cwd string, n *approvalNeed) error {
	id := uuid.NewString()
	approve := "openclaw approvals allow " + strings.Join(shellQuote(n.missed), " ")
	if len(n.missed) == 0 {
		// Shell syntax the allowlist cannot vouch for (redirection,
		// substitution, &): only full security runs it.
		approve = "openclaw approvals set --security full"
	}
	return tools.Errorf(tools.CodePendingApproval,
		"Approval required (id %s): `%s` (host gateway, %s) needs approval (security=%s ask=%s). Approve with `%s`, then run it again.",
		id[:8], p.Command, describeEnv(cwd, p.Env), n.sec, n.ask, approve).WithDetails(map[string]any{
		"status": "approval-pending", "approvalId": id, "approvalSlug": id[:8], "host": "gateway",
		"command": p.Command, "cwd": cwd, "env": envOrEmpty(p.Env), "approveCommand": approve, "missed": n.missed})
}

// allowlisted resolves each segment's executable and matches it; missed
// are the executables (real paths, or the words) that matched nothing.
// envKeys are the call's environment overrides: they, and the variables an
// env wrapper in the line sets, must be named by the entry that vouches
// for each program (a safe bin vouches for none); envMissed lists those
// that were not (issue 30: GIT_CONFIG_* and TAR_OPTIONS run code under an
// argPattern-bound entry).
func allowlisted(env *tools.Env, safeBins []string, command, cwd string, allow []policy.AllowlistEntry, envKeys []string) (bool, []string, []string) {
	segs, ok := policy.AnalyzeWords(command)
	if !ok {
		return false, nil, nil
	}
	if safeBins == nil {
		safeBins = policy.DefaultSafeBins
	}
	home, _ := os.UserHomeDir()
	all := true
	var missed, envMissed []string
	for _, w := range segs {
		// Match (and store) the program behind transparent wrappers (env,
		// nice, timeout, ...); a wrapper that cannot be vouched for (sudo,
		// xargs, a shell) matches only "*" and is never stored.
		start, refused := policy.Unwrap(w, func(name string) bool { return systemBinary(name, cwd) })
		if refused != "" {
			if !allowsAll(allow) {
				all = false
			}
			continue
		}
		argv := w.Argv[start:]
		seg := resolveSegment(argv, cwd)
		seg.Expands = w.Expands[start:]
		keys := append(slices.Clone(envKeys), policy.WrapperEnvKeys(w.Argv, start)...)
		if policy.MatchAllowlistEnv(seg, allow, home, keys) != nil {
			continue
		}
		if len(keys) == 0 && policy.SafeBin(seg, safeBins, []string{"/bin", "/usr/bin"}) {
			continue
		}
		all = false
		for _, k := range keys { // no entry vouches for this program with these variables
			if !slices.Contains(envMissed, k) {
				envMissed = append(envMissed, k)
			}
		}
		if seg.Resolved != "" {
			missed = append(missed, seg.Resolved)
		} else {
			missed = append(missed, argv[0])
		}
	}
	slices.Sort(envMissed)
	return all, missed, envMissed
}

// allowsAll reports a bare "*" entry (allow everything, spec §1.9).
func allowsAll(allow []policy.AllowlistEntry) bool {
	for _, e := range allow {
		if e.Pattern == "*" && e.ArgPattern == "" {
			return true
		}
	}
	return false
}

// systemDirs hold the wrappers that are unwrapped (a ./env script is not
// env: it is the program that runs).
var systemDirs = []string{"/bin", "/usr/bin", "/sbin", "/usr/sbin"}

// systemBinary reports whether a command word resolves into systemDirs.
func systemBinary(name, cwd string) bool {
	seg := resolveSegment([]string{name}, cwd)
	return seg.Resolved != "" && slices.Contains(systemDirs, filepath.Dir(seg.Resolved))
}

func resolveSegment(argv []string, cwd string) policy.Segment {
	seg := policy.Segment{Argv: argv}
	name := argv[0]
	var p string
	if strings.Contains(name, "/") {
		p = name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
	} else {
		seg.ViaPATH = true
		lp, err := exec.LookPath(name)
		if err != nil {
			return seg
		}
		p = lp
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			seg.Resolved = abs
		}
	}
	return seg
}

func shellQuote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s != "" && !strings.ContainsAny(s, " '\"\\$`!*?[]{}()<>|&;#~") {
			out[i] = s
		} else {
			out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return out
}
