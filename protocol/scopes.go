package protocol

// Roles and operator scopes (§4.5).
const (
	RoleOperator = "operator"
	RoleNode     = "node"

	ScopeRead      = "operator.read"
	ScopeWrite     = "operator.write"
	ScopeAdmin     = "operator.admin"
	ScopeApprovals = "operator.approvals"
	ScopeQuestions = "operator.questions"
	ScopePairing   = "operator.pairing"
	ScopeTalk      = "operator.talk"
	ScopeTalkSecr  = "operator.talk.secrets"
	ScopeSessRead  = "operator.sessions.read"
	ScopeSessWrite = "operator.sessions.write"
)

// ScopeSatisfied reports whether the granted scopes satisfy required, with
// the original's implication rules: admin satisfies everything; write
// satisfies read, talk and the session scopes; read or sessions.write
// satisfies sessions.read.
func ScopeSatisfied(granted []string, required string) bool {
	if required == "" {
		return true
	}
	for _, g := range granted {
		if g == required || g == ScopeAdmin {
			return true
		}
		switch g {
		case ScopeWrite:
			switch required {
			case ScopeRead, ScopeTalk, ScopeSessRead, ScopeSessWrite:
				return true
			}
		case ScopeRead, ScopeSessWrite:
			if required == ScopeSessRead {
				return true
			}
		}
	}
	return false
}

// NodeOnlyMethods may only be called by role "node" (§4.5 step 2).
var NodeOnlyMethods = map[string]bool{
	"node.invoke.result": true, "node.invoke.progress": true, "node.event": true,
	"node.pending.pull": true, "node.pending.ack": true, "node.pending.drain": true,
	"node.pluginTools.update": true, "node.skills.update": true,
	"node.pluginSurface.refresh": true, "node.runnerInventory.update": true,
	"skills.bins": true,
}
