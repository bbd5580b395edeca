package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// device.pair.* (operator.pairing), as the original's: list pending and
// paired devices, approve or reject a pending request, remove a paired
// device (its open connections are closed). `openclaw devices` calls them.
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
			return s.pairing.list(nowMs()), nil
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
			if err := s.pairing.remove(id); err != nil {
				return nil, pairingOpError(err)
			}
			s.log.Infof("device pairing removed device=%s", short(id))
			for _, c := range s.readyConns() {
				if c.sess.deviceID == id {
					c.closeWith(4001, "client invalidated: device-pair-removed")
				}
			}
			return map[string]any{"deviceId": id}, nil
		},
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
	if errors.Is(err, errUnknownRequest) || errors.Is(err, errUnknownDevice) || errors.Is(err, errApprovalDenied) {
		return tools.Errorf(protocol.ErrInvalidRequest, "%s", err.Error())
	}
	return err
}
