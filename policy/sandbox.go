package policy

import "slices"

// ChannelIDs are the Classic core message channels. The sandbox default
// denies them as tool names so a sandboxed agent cannot reach a
// channel-named plugin tool; callers with extra channel plugins append
// their ids to SandboxDefaults().Deny.
var ChannelIDs = []string{"whatsapp", "telegram", "discord", "slack", "signal", "imessage", "googlechat", "msteams"}

// SandboxDefaults returns the built-in Classic sandbox policy (§5.9):
// workspace, runtime and session tools in; host-reaching tools out.
func SandboxDefaults() Policy {
	return Policy{
		Allow: []string{
			"exec", "process", "read", "write", "edit", "apply_patch", "image",
			"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status",
		},
		Deny: append([]string{"browser", "canvas", "nodes", "cron", "gateway"}, ChannelIDs...),
	}
}

// SandboxPolicy resolves the effective sandbox policy from the agent's and
// the global `sandbox.tools` (either may be nil). Each key falls back on its
// own: agent list, else global list, else the default; a set list (even
// empty) replaces, it does not merge. alsoAllow is folded into allow.
//
// Two fixes over Classic: a tool named explicitly in a configured
// allow/alsoAllow is taken out of the *default* deny list (otherwise
// allowing "browser" could never work without restating the deny list), and
// `image` is only auto-added to a non-empty allow-list (Classic also added it
// to an empty one, which turned "allow everything" into "allow image").
func SandboxPolicy(agent, global *Policy) Policy {
	def := SandboxDefaults()
	pick := func(get func(*Policy) []string) []string {
		for _, p := range []*Policy{agent, global} {
			if p != nil && get(p) != nil {
				return slices.Clone(get(p))
			}
		}
		return nil
	}
	allow := pick(func(p *Policy) []string { return p.Allow })
	also := pick(func(p *Policy) []string { return p.AlsoAllow })
	deny := pick(func(p *Policy) []string { return p.Deny })

	explicit := ExpandGroups(append(slices.Clone(allow), also...))
	if allow == nil {
		allow = def.Allow
	}
	allow = ExpandGroups(Policy{Allow: allow, AlsoAllow: also}.effectiveAllow())
	if deny == nil {
		deny = slices.DeleteFunc(def.Deny, func(t string) bool { return slices.Contains(explicit, t) })
	}
	deny = ExpandGroups(deny)
	if len(allow) > 0 && !slices.Contains(allow, "image") && !slices.Contains(deny, "image") {
		allow = append(allow, "image")
	}
	return Policy{Allow: allow, Deny: deny}
}
