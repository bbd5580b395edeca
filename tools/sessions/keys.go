// Package sessions is the gateway's session store (spec
// tools-automation-sessions-policy.md §3): session keys as the original
// spells them (agent:<id>:main, …:subagent:<uuid>, …:cron:<jobId>), one row
// per session and an append-only transcript per session in the state
// database, the sessions_list and sessions_history agent tools and the
// sessions.list and sessions.preview gateway methods.
package sessions

import "strings"

// DefaultAgent and MainKey are the original's defaults (agent id main,
// session.mainKey main).
const (
	DefaultAgent = "main"
	MainKeyName  = "main"
)

// validAgentID is ^[a-z0-9][a-z0-9_-]{0,63}$ (checked by hand: no
// package-level regexp to compile at start-up).
func validAgentID(id string) bool {
	if id == "" || len(id) > 64 || !isIDByte(id[0]) || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isIDByte(id[i]) {
			return false
		}
	}
	return true
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// collapseBad replaces each run of characters outside [a-z0-9_-] by "-".
func collapseBad(id string) string {
	var b strings.Builder
	bad := false
	for i := 0; i < len(id); i++ {
		if isIDByte(id[i]) {
			b.WriteByte(id[i])
			bad = false
			continue
		}
		if !bad {
			b.WriteByte('-')
		}
		bad = true
	}
	return b.String()
}

// NormalizeAgentID is the original's agent id rule: lower case, invalid
// characters collapse to "-", leading dashes and underscores go, at most
// 64 characters; empty is main.
func NormalizeAgentID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return DefaultAgent
	}
	if validAgentID(id) {
		return id
	}
	id = collapseBad(id)
	id = strings.TrimLeft(id, "-_")
	if len(id) > 64 {
		id = id[:64]
	}
	if id == "" {
		return DefaultAgent
	}
	return id
}

// MainKey is an agent's main session key.
func MainKey(agentID string) string { return "agent:" + NormalizeAgentID(agentID) + ":" + MainKeyName }

// SubagentKey is a child session of parent's agent (or agentID) with id.
func SubagentKey(agentID, id string) string {
	return "agent:" + NormalizeAgentID(agentID) + ":subagent:" + id
}

// CronKey is the session of a cron job.
func CronKey(agentID, jobID string) string {
	return "agent:" + NormalizeAgentID(agentID) + ":cron:" + jobID
}

// caseKept are key segments after which the rest keeps its case
// (provider-opaque ids: Matrix room ids, Signal group ids).
func keepsCase(channel string) bool { return channel == "matrix" || channel == "signal" }

// Canonical resolves a key as a tool or client gives it to the stored
// form, for a caller of agent callerAgent: "main" is the caller's main
// key; a key without the agent: prefix ("cron:job-1", "subagent:x") is
// the caller's; agent:<id>:… has its agent id normalised and is lower
// cased except provider-opaque ids. Node keys (node-<id>) stay as given.
func Canonical(key, callerAgent string) string {
	key = strings.TrimSpace(key)
	if key == "" {
		return ""
	}
	if strings.HasPrefix(key, "node-") {
		return key
	}
	lower := strings.ToLower(key)
	if lower == MainKeyName {
		return MainKey(callerAgent)
	}
	if !strings.HasPrefix(lower, "agent:") {
		key = "agent:" + NormalizeAgentID(callerAgent) + ":" + key
	}
	parts := strings.SplitN(key, ":", 3)
	if len(parts) < 3 || parts[2] == "" {
		return strings.ToLower(key)
	}
	rest := parts[2]
	restParts := strings.Split(rest, ":")
	if keepsCase(strings.ToLower(restParts[0])) && len(restParts) > 2 {
		// channel:(group|direct|…):<opaque id>[…]: the marker is lowered, the id kept.
		rest = strings.ToLower(restParts[0]) + ":" + strings.ToLower(restParts[1]) + ":" + strings.Join(restParts[2:], ":")
	} else {
		rest = strings.ToLower(rest)
	}
	rest = strings.ReplaceAll(rest, ":dm:", ":direct:")
	if strings.HasPrefix(rest, "dm:") {
		rest = "direct:" + rest[3:]
	}
	return "agent:" + NormalizeAgentID(parts[1]) + ":" + rest
}

// AgentOf is the agent id of a stored key (main for keys without one).
func AgentOf(key string) string {
	if strings.HasPrefix(key, "agent:") {
		if parts := strings.SplitN(key, ":", 3); len(parts) == 3 {
			return parts[1]
		}
	}
	return DefaultAgent
}

// rest is the key after agent:<id>:.
func rest(key string) string {
	if strings.HasPrefix(key, "agent:") {
		if parts := strings.SplitN(key, ":", 3); len(parts) == 3 {
			return parts[2]
		}
	}
	return key
}

// Display is the key as a tool shows it to callerAgent: its own agent's
// prefix stripped (cron:<jobId>, main), others' kept.
func Display(key, callerAgent string) string {
	if AgentOf(key) == NormalizeAgentID(callerAgent) && strings.HasPrefix(key, "agent:") {
		return rest(key)
	}
	return key
}

// Kind is the sessions_list kind of a key: main, group, cron, hook, node
// or other.
func Kind(key string) string {
	r := rest(key)
	switch {
	case strings.HasPrefix(key, "node-"):
		return "node"
	case r == MainKeyName:
		return "main"
	case strings.Contains(":"+r, ":group:") || strings.Contains(":"+r, ":channel:"):
		return "group"
	case strings.HasPrefix(r, "cron:"):
		return "cron"
	case strings.HasPrefix(r, "hook:"):
		return "hook"
	}
	return "other"
}

// gatewayKind is the kind sessions.list rows carry (the original's
// direct|group|global|unknown).
func gatewayKind(key string) string {
	switch {
	case key == "global":
		return "global"
	case key == "unknown":
		return "unknown"
	case Kind(key) == "group":
		return "group"
	}
	return "direct"
}

// SpawnDepth is how deep a sub-agent key is (count of :subagent:).
func SpawnDepth(key string) int { return strings.Count(key, ":subagent:") }

// channelOf is a row's channel as sessions_list reports it: a group's
// channel segment, internal for cron/hook/node, the last channel for
// direct sessions, else unknown.
func channelOf(key, lastChannel string) string {
	switch Kind(key) {
	case "group":
		if p := strings.Split(rest(key), ":"); len(p) > 1 {
			return p[0]
		}
	case "cron", "hook", "node":
		return "internal"
	}
	if lastChannel != "" {
		return lastChannel
	}
	return "unknown"
}
