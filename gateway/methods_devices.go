package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// device.pair.* and device.token.* (operator.pairing), as the original's:
// list pending and paired devices, approve or reject a pending request,
// remove or rename a paired device, rotate or revoke its token for a role
// (its open connections for that role are closed). `openclaw devices`
// calls them. A caller connected with a device's own token (and no
// operator.admin) manages only that device (device_authz.go).
func init() {
	registerMethod(&tools.Action{
		Method:  "device.pair.list",
		Summary: "List pending and paired devices",
		Schema:  `{"type":"object","additionalProperties":false}`,
		Scope:   protocol.ScopePairing,
		Render:  renderDevices,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "device.pair.list")
			if err != nil {
				return nil, err
			}
			return s.listDevices(callerOf(env), nowMs()), nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "device.pair.approve",
		Summary: "Approve a pending pairing request",
		Schema:  `{"type":"object","required":["requestId"],"properties":{"requestId":{"type":"string","minLength":1,"description":"Pending request id (from devices list)"}},"additionalProperties":false}`,
		Args:    []string{"requestId"},
		Scope:   protocol.ScopePairing,
		Render:  renderApproved,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "device.pair.approve")
			if err != nil {
				return nil, err
			}
			id := stringParam(params, "requestId")
			d, err := s.pairing.approve(id, env.Subject.Scopes, nowMs())
			if err != nil {
				return nil, pairingOpError(err)
			}
			s.log.Infof("device pairing approved device=%s roles=%v", short(d.DeviceID), d.Roles)
			_ = s.broadcast("device.pair.resolved", map[string]any{"requestId": id, "deviceId": d.DeviceID, "decision": "approved", "ts": nowMs()}, nil, true)
			return map[string]any{"requestId": id, "device": d}, nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "device.pair.reject",
		Summary: "Reject a pending pairing request",
		Schema:  `{"type":"object","required":["requestId"],"properties":{"requestId":{"type":"string","minLength":1,"description":"Pending request id (from devices list)"}},"additionalProperties":false}`,
		Args:    []string{"requestId"},
		Scope:   protocol.ScopePairing,
		Render:  renderRejected,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "device.pair.reject")
			if err != nil {
				return nil, err
			}
			id := stringParam(params, "requestId")
			pr, err := s.pairing.reject(id, nowMs())
			if err != nil {
				return nil, pairingOpError(err)
			}
			s.log.Infof("device pairing rejected device=%s", short(pr.DeviceID))
			_ = s.broadcast("device.pair.resolved", map[string]any{"requestId": id, "deviceId": pr.DeviceID, "decision": "rejected", "ts": nowMs()}, nil, true)
			return map[string]any{"requestId": id, "deviceId": pr.DeviceID}, nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "device.pair.remove",
		Summary: "Remove a paired device (its connections are closed)",
		Schema:  `{"type":"object","required":["deviceId"],"properties":{"deviceId":{"type":"string","minLength":1,"description":"Paired device id"}},"additionalProperties":false}`,
		Args:    []string{"deviceId"},
		Scope:   protocol.ScopePairing,
		Render:  renderRemoved,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "device.pair.remove")
			if err != nil {
				return nil, err
			}
			id := strings.ToLower(strings.TrimSpace(stringParam(params, "deviceId")))
			dc := callerOf(env)
			if dc.deniesCrossDevice(id) {
				s.log.Warnf("device pairing removal denied device=%s reason=device-ownership-mismatch", short(id))
				return nil, tools.Errorf(protocol.ErrInvalidRequest, "device pairing removal denied")
			}
			if err := s.pairing.remove(id); err != nil {
				return nil, pairingOpError(err)
			}
			s.log.Infof("device pairing removed device=%s", short(id))
			s.disconnectDevice(dc, id, "", reasonDevicePairRemoved)
			return map[string]any{"deviceId": id}, nil
		},
	})
	registerMethod(&tools.Action{
		Method:  "device.pair.rename",
		Summary: "Give a paired device an operator label",
		Schema:  `{"type":"object","required":["deviceId","label"],"properties":{"deviceId":{"type":"string","minLength":1,"description":"Paired device id"},"label":{"type":"string","minLength":1,"maxLength":64,"description":"Label shown in devices list (max 64 characters)"}},"additionalProperties":false}`,
		Args:    []string{"deviceId", "label"},
		Scope:   protocol.ScopePairing,
		Render:  renderRenamed,
		Run:     runRename,
	})
	registerMethod(&tools.Action{
		Method:  "device.token.rotate",
		Summary: "Rotate a device's token for a role (the old one stops working)",
		Description: "The new token is returned only to the device itself (connected with its own token); " +
			"for another caller it is withheld and the device receives it on its next verified connect. " +
			"Scopes may only narrow to what the device was approved for (and the caller holds).",
		Schema: `{"type":"object","required":["deviceId","role"],"properties":{"deviceId":{"type":"string","minLength":1,"description":"Paired device id"},"role":{"type":"string","minLength":1,"description":"Role of the token (operator or node)"},"scopes":{"type":"array","items":{"type":"string","minLength":1},"description":"Scopes of the new token (default: the current ones)"}},"additionalProperties":false}`,
		Args:   []string{"deviceId", "role"},
		Scope:  protocol.ScopePairing,
		Render: renderRotated,
		Run:    runRotate,
	})
	registerMethod(&tools.Action{
		Method:  "device.token.revoke",
		Summary: "Revoke a device's token for a role (its connections are closed)",
		Schema:  `{"type":"object","required":["deviceId","role"],"properties":{"deviceId":{"type":"string","minLength":1,"description":"Paired device id"},"role":{"type":"string","minLength":1,"description":"Role of the token (operator or node)"}},"additionalProperties":false}`,
		Args:    []string{"deviceId", "role"},
		Scope:   protocol.ScopePairing,
		Render:  renderRevoked,
		Run:     runRevoke,
	})
}

func stringParam(params json.RawMessage, key string) string {
	var m map[string]any
	_ = json.Unmarshal(params, &m)
	v, _ := m[key].(string)
	return strings.TrimSpace(v)
}

// pairingOpError puts the original's texts on the wire as INVALID_REQUEST.
func pairingOpError(err error) error {
	if errors.Is(err, errUnknownRequest) || errors.Is(err, errUnknownDevice) || errors.Is(err, errApprovalDenied) ||
		errors.Is(err, errRenameDenied) {
		return tools.Errorf(protocol.ErrInvalidRequest, "%s", err.Error())
	}
	return err
}
