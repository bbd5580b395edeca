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
