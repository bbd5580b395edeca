package gateway

import (
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// deviceCaller is who asks to manage a device, as the original sees it:
// the connection's scopes, and its device id only when it authenticated
// with that device's own token (a shared-secret caller manages any device,
// like the gateway's owner; a device manages itself).
type deviceCaller struct {
	deviceID string
	scopes   []string
	admin    bool
	conn     *conn  // nil when the call did not come over a connection
	reqID    string // the request's id on conn
}

// callerOf reads the caller from the request's environment: the gateway
// gives each request a sink bound to its connection (dispatch.go).
func callerOf(env *tools.Env) deviceCaller {
	dc := deviceCaller{scopes: env.Subject.Scopes}
	if k, ok := env.Sink.(*connSink); ok && k.c != nil {
		dc.conn, dc.reqID = k.c, k.id
		if sess := k.c.sess; sess != nil && sess.authMethod == "device-token" {
			dc.deviceID = sess.deviceID
		}
	}
	dc.admin = slices.Contains(dc.scopes, protocol.ScopeAdmin)
	return dc
}

// deniesCrossDevice: a device caller without operator.admin may manage
// only its own device.
func (dc deviceCaller) deniesCrossDevice(target string) bool {
	return dc.deviceID != "" && dc.deviceID != target && !dc.admin
}

// deniesRole: managing a token of a role other than operator (a node's)
// needs operator.admin.
func (dc deviceCaller) deniesRole(role string) bool {
	return role != protocol.RoleOperator && !dc.admin
}

// tokenCallerScopes is the cap a caller puts on an operator token's
// scopes (its own scopes); nil (no cap) for other roles, which deniesRole
// already limits to admins.
func (dc deviceCaller) tokenCallerScopes(role string) []string {
	if role != protocol.RoleOperator {
		return nil
	}
	return nonNil(dc.scopes)
}

// hasNonOperatorRole reports whether the device holds any role besides
// operator, approved or in a token.
func hasNonOperatorRole(d *pairedDevice) bool {
	for _, r := range d.Roles {
		if r = strings.TrimSpace(r); r != "" && r != protocol.RoleOperator {
			return true
		}
	}
	for _, t := range d.Tokens {
		if r := strings.TrimSpace(t.Role); r != "" && r != protocol.RoleOperator {
			return true
		}
	}
	return false
}
