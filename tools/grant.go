package tools

import (
	"slices"

	"github.com/openclaw-go/openclaw/protocol"
)

// A run never holds more than whoever started it. An agent turn (and what
// follows from one: a cron job's runs, a spawned sub-agent, a turn a
// session send starts, the announce and ping-pong turns after them) is
// work the gateway does on someone's behalf, after the request that
// caused it returned: its tool calls carry the scopes of that someone,
// recorded when the run was asked for, and the door checks every call
// (and every method a tool runs in turn, such as the gateway tool's
// config.patch or the cron tool's cron.add) against them exactly as it
// would for that caller's own connection.
//
//	started by                                  the run holds
//	an operator connection (agent, chat.send,   that connection's scopes
//	  tools.invoke of sessions_send/_spawn)
//	an agent turn (sessions_spawn,              the turn's own scopes (never wider)
//	  sessions_send, cron add)
//	the local user in this process (the         OwnerScopes: every operator scope
//	  machine's owner; tests, embedders)
//	anyone else, or nobody known (a cron job    LeastRunScopes: operator.write only
//	  stored before scopes were recorded)

// OwnerScopes are the rights of the machine's owner (the local user, the
// zero Subject) handed to a run it starts in this process: every operator
// scope. The CLI itself starts no turn in-process: `openclaw agent` asks a
// gateway, whose turn then holds the scopes that connection was granted.
var OwnerScopes = []string{protocol.ScopeAdmin, protocol.ScopeRead, protocol.ScopeWrite, protocol.ScopeApprovals, protocol.ScopePairing}

// LeastRunScopes are what a run holds when its starter's scopes are not
// known: operator.write, the least any caller that can start a turn has
// (the agent method needs it). Such a run may use the agent tools
// (operator.write) but no operator.admin action (config writes, restart,
// cron add/update/remove/run, admin-only node commands), no approvals
// and no pairing: it fails closed, never to admin.
var LeastRunScopes = []string{protocol.ScopeWrite}

// RunScopes are the scopes a run this caller starts holds: the local
// user's OwnerScopes; an operator connection's (or a relayed or running
// agent turn's) own scopes, copied; nil for anyone else (a node, an
// in-process caller that names no connection), which a run resolves to
// LeastRunScopes.
func (s Subject) RunScopes() []string {
	switch {
	case s.IsUser():
		return slices.Clone(OwnerScopes)
	case s.Role == protocol.RoleOperator:
		return slices.Clone(s.Scopes)
	}
	return nil
}

// AgentTurn is the Subject of an agent turn's tool calls: the agent and
// its session, and the scopes the run holds (RunScopes of whoever started
// it; empty: LeastRunScopes) under the operator role, so the door checks
// every call the model makes against them (authorize), as it would the
// starter's own connection.
func AgentTurn(agentID, sessionKey string, scopes []string) Subject {
	if len(scopes) == 0 {
		scopes = LeastRunScopes
	}
	return Subject{Kind: CallerAgent, AgentID: agentID, SessionKey: sessionKey,
		Role: protocol.RoleOperator, Scopes: slices.Clone(scopes)}
}
