package tools

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/policy"
)

// PolicyInput gathers what the tool policy pipeline needs from the config
// and the subject: the global `tools` section, the agent's `tools` block and
// the provider/model of the calling run.
func PolicyInput(env *Env) policy.Input { return policyInput(env, Default) }

func policyInput(env *Env, r *Registry) policy.Input {
	registered := r.ToolNames()
	cfg := config.Empty()
	if env != nil && env.Config != nil {
		cfg = env.Config
	}
	in := policy.Input{Tools: inventory(registered), AgentID: "main", PluginTools: r.PluginTools()}
	if env != nil {
		in.AgentID = env.AgentID()
		in.Provider, in.Model = env.Subject.Provider, env.Subject.Model
	}
	// The typed sections are decoded once per config load, not per call.
	for _, name := range registered {
		if key, err := r.unavailable(env, name); err != nil {
			in.Unavailable = append(in.Unavailable, policy.Removal{Tool: name, Step: key})
		}
	}
	in.Global = *cfg.Tools()
	// A sub-agent session's run (its key names :subagent:) gets the
	// depth-aware sub-agent policy (spec §5.10).
	if env != nil {
		if depth := strings.Count(env.Subject.SessionKey, ":subagent:"); depth > 0 {
			sub := &policy.SubagentInput{Depth: depth, MaxSpawnDepth: cfg.Int("agents.defaults.subagents.maxSpawnDepth", 0)}
			_ = cfg.Decode("tools.subagents.tools", &sub.Tools)
			in.Subagent = sub
		}
	}
	for _, a := range cfg.Agents().List {
		if a.ID == in.AgentID && a.Tools != nil {
			in.Agent = a.Tools
		}
	}
	return in
}

// inventory is every tool the policy reasons about: the whole core set the
// policy package knows plus whatever is registered.
func inventory(registered []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(policy.CoreTools(), registered...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Effective runs the policy pipeline for env's subject.
func Effective(env *Env) policy.Result {
	return policy.Resolve(PolicyInput(env))
}

// EffectiveReport is Effective as shown to a user (`tools effective`,
// tools.effective): Allowed and Removed name only registered tools, since
// the pipeline also reasons about core tools its groups and profiles name
// that this build does not have (cron, nodes, …); Note says so once.
type EffectiveReport struct {
	policy.Result
	NotBuilt []string
	Note     string
}

// EffectiveRegistered runs Effective and keeps the registered tools.
func EffectiveRegistered(env *Env) EffectiveReport { return effectiveRegistered(env, Default) }

func effectiveRegistered(env *Env, r *Registry) EffectiveReport {
	res := policy.Resolve(policyInput(env, r))
	have := map[string]bool{}
	for _, n := range r.ToolNames() {
		have[policy.Normalize(n)] = true
	}
	out := EffectiveReport{Result: policy.Result{Removed: []policy.Removal{}, Warnings: res.Warnings}}
	for _, a := range res.Allowed {
		if have[policy.Normalize(a)] {
			out.Allowed = append(out.Allowed, a)
		}
	}
	for _, r := range res.Removed {
		if have[policy.Normalize(r.Tool)] {
			out.Removed = append(out.Removed, r)
		}
	}
	for _, n := range inventory(nil) {
		if !have[policy.Normalize(n)] {
			out.NotBuilt = append(out.NotBuilt, n)
		}
	}
	if len(out.NotBuilt) > 0 {
		out.Note = fmt.Sprintf("tool groups and profiles also name %d tool(s) this build does not have, not listed: %s",
			len(out.NotBuilt), strings.Join(out.NotBuilt, ", "))
	}
	return out
}

// CheckPolicy returns a DENIED error when the tool policy removes tool for
// env's subject. Deny always wins, whoever calls.
func CheckPolicy(env *Env, tool string) error { return checkPolicy(env, tool, Default) }

// Unavailable returns why tool does not exist for env's caller (its
// Action.Available), or nil when it does.
func Unavailable(env *Env, tool string) error {
	_, err := Default.unavailable(env, tool)
	return err
}

func (r *Registry) unavailable(env *Env, tool string) (key string, err error) {
	for _, a := range r.ToolActions(tool) {
		if a.Available == nil {
			continue
		}
		if env == nil {
			env = &Env{}
		}
		if err := a.Available(env); err != nil {
			key = a.AvailableKey
			if key == "" {
				key = "runtime"
			}
			return key, err
		}
	}
	return "", nil
}

func checkPolicy(env *Env, tool string, r *Registry) error {
	if _, err := r.unavailable(env, tool); err != nil {
		return err
	}
	res := policy.Resolve(policyInput(env, r))
	if env != nil && env.Warn != nil {
		warn(env.Warn, res.Warnings)
	}
	if res.Allows(tool) {
		return nil
	}
	step := "policy"
	n := policy.Normalize(tool)
	for _, r := range res.Removed {
		if r.Tool == n {
			step = r.Step
			break
		}
	}
	return Errorf(CodeDenied, "tool %q is denied by tool policy (%s)", tool, step).
		WithDetails(map[string]any{"tool": tool, "step": step})
}

func warn(w io.Writer, msgs []string) {
	for _, m := range msgs {
		fmt.Fprintln(w, "warning: "+m)
	}
}
