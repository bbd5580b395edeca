package policy

import "slices"

// Sub-agent defaults (§5.10, depth-aware Classic). Admin, scheduling and
// memory tools stay with the main agent; sub-agents report back through the
// announce chain rather than sessions_send.
var (
	subagentDenyAlways = []string{
		"gateway", "agents_list", "whatsapp_login", "session_status", "cron",
		"memory_search", "memory_get", "sessions_send",
	}
	// A leaf (depth >= maxSpawnDepth) cannot spawn, so it also loses the
	// session tools that only an orchestrator needs.
	subagentDenyLeaf = []string{"sessions_list", "sessions_history", "sessions_spawn"}
)

// SubagentPolicy returns the policy of a sub-agent session at in.Depth.
//
// A configured deny list (non-nil, even empty) replaces the defaults;
// otherwise the defaults apply minus anything named in allow/alsoAllow, so
// granting a default-denied tool is a one-liner. Allow and alsoAllow are
// merged when both are set; alsoAllow alone leaves Allow nil (no
// restriction).
func SubagentPolicy(in SubagentInput) Policy {
	depth := max(in.Depth, 1)
	maxDepth := max(in.MaxSpawnDepth, 1)
	cfg := in.Tools

	var deny []string
	if cfg.Deny != nil {
		deny = slices.Clone(cfg.Deny)
	} else {
		explicit := map[string]bool{}
		for _, e := range append(slices.Clone(cfg.Allow), cfg.AlsoAllow...) {
			explicit[Normalize(e)] = true
		}
		base := subagentDenyAlways
		if depth >= maxDepth {
			base = append(slices.Clone(base), subagentDenyLeaf...)
		}
		for _, t := range base {
			if !explicit[t] {
				deny = append(deny, t)
			}
		}
	}

	allow := slices.Clone(cfg.Allow)
	if cfg.Allow != nil && cfg.AlsoAllow != nil {
		allow = dedupe(append(allow, cfg.AlsoAllow...))
	}
	return Policy{Allow: allow, Deny: deny}
}
