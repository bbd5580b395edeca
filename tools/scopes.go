package tools

import "github.com/openclaw-go/openclaw/protocol"

// Operator scopes an Action may require (Action.Scope), so families name
// them without importing the wire package.
const (
	ScopeRead  = protocol.ScopeRead
	ScopeWrite = protocol.ScopeWrite
	ScopeAdmin = protocol.ScopeAdmin
)
