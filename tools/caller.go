package tools

import (
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

// Caller is the kind of caller a Subject is. The door applies its checks
// by kind, never by "is a field empty":
//
//	kind      who                                  policy  scopes          loop detection
//	user      the local CLI, the machine's owner   yes     no              no
//	operator  a gateway connection with scopes     yes     yes             no
//	node      a node host's gateway connection     yes     role only       no
//	agent     a model turn (session key, agent)    yes     yes (its run's) yes
//	mcp       a client of `openclaw mcp serve`     yes     when relayed    yes
//
// Tool policy applies to every caller, since every call is made for an
// agent: the one it names (agentId, a session key, OPENCLAW_AGENT_ID) or the
// default "main"; the local user included, so tools.deny holds for scripts
// too. Scopes (and the action's roles) apply to whatever arrived over a
// gateway connection (Role set): operators and nodes always, an agent or
// MCP caller when the gateway relays it (tools.invoke naming a session),
// and every agent turn the gateway runs, which holds the scopes of whoever
// started it (grant.go: AgentTurn sets the operator role and those
// scopes).
type Caller string

// The caller kinds.
const (
	CallerUser     Caller = "user"
	CallerOperator Caller = "operator"
	CallerNode     Caller = "node"
	CallerAgent    Caller = "agent"
	CallerMCP      Caller = "mcp"
)

// Caller is the subject's kind. An empty Kind resolves to the least
// privileged kind the other fields fit, so a Subject built without one
// never becomes the machine's user by accident: a session key makes it an
// agent turn, a connection role an operator or node; only a Subject naming
// neither (the zero Subject) is the local user.
func (s Subject) Caller() Caller {
	switch {
	case s.Kind != "":
		return s.Kind
	case s.SessionKey != "":
		return CallerAgent
	case s.Role == protocol.RoleNode:
		return CallerNode
	case s.Role != "":
		return CallerOperator
	}
	return CallerUser
}

// ViaGateway reports a call bounded by a gateway connection's role and
// scopes: one that arrived over a connection, or an agent turn holding the
// scopes of the connection that started it (AgentTurn). The action's roles
// and those scopes apply to it.
func (s Subject) ViaGateway() bool { return s.Role != "" }

// IsUser reports the local user (the CLI in this process), the only caller
// the gateway's own files are not guarded from.
func (s Subject) IsUser() bool { return s.Caller() == CallerUser }

// LoopGuarded reports a caller under tool-call loop detection: model turns
// and MCP clients, however they reach the door.
func (s Subject) LoopGuarded() bool {
	k := s.Caller()
	return k == CallerAgent || k == CallerMCP
}

// check refuses a Subject whose kind and connection disagree: an unknown
// kind, an operator or node without its connection role, a local user
// claiming one. Invoke runs nothing for such a caller (fail closed).
func (s Subject) check() error {
	bad := func(why string) error {
		return failure.Errorf(failure.CodeUnauthorizedRole, "invalid caller: %s", why)
	}
	switch k := s.Caller(); k {
	case CallerUser:
		if s.Role != "" {
			return bad("a local user comes over no gateway connection (role " + s.Role + ")")
		}
	case CallerOperator, CallerNode:
		if s.Role != string(k) {
			return bad(string(k) + " caller with connection role " + quoteOrNone(s.Role))
		}
	case CallerAgent:
		if s.AgentID == "" && s.SessionKey == "" {
			return bad("an agent caller names its agent or session")
		}
	case CallerMCP:
	default:
		return bad("unknown kind " + quoteOrNone(string(k)))
	}
	return nil
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return `"` + s + `"`
}
