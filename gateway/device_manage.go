package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The handlers of device.pair.rename, device.token.rotate and
// device.token.revoke (registered in methods_devices.go), with the
// original's checks in its order: cross-device, role, then the store's.

var errRenameDenied = errors.New("device pairing rename denied")

// Wire texts of a refused rotation or revocation (whatever the reason).
const (
	msgRotateDenied = "device token rotation denied"
	msgRevokeDenied = "device token revocation denied"
)

// tokenParams are rotate's and revoke's params.
type tokenParams struct {
	DeviceID string    `json:"deviceId"`
	Role     string    `json:"role"`
	Scopes   *[]string `json:"scopes"`
}

func decodeTokenParams(params json.RawMessage) (tokenParams, error) {
	var p tokenParams
	if err := json.Unmarshal(params, &p); err != nil {
		return p, tools.Errorf(protocol.ErrInvalidRequest, "invalid params: %v", err)
	}
	p.DeviceID = strings.ToLower(strings.TrimSpace(p.DeviceID))
	p.Role = strings.TrimSpace(p.Role)
	return p, nil
}

func runRename(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	s, err := serverFrom(env, "device.pair.rename")
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(stringParam(params, "deviceId"))
	label := stringParam(params, "label")
	if label == "" {
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "label required")
	}
	dc := callerOf(env)
	if dc.deniesCrossDevice(id) {
		s.log.Warnf("device pairing rename denied device=%s reason=device-ownership-mismatch", short(id))
		return nil, tools.Errorf(protocol.ErrInvalidRequest, "%s", errRenameDenied.Error())
	}
	if err := s.pairing.rename(id, label, dc.deviceID != "" && !dc.admin); err != nil {
		if errors.Is(err, errRenameDenied) {
			s.log.Warnf("device pairing rename denied device=%s reason=role-management-requires-admin", short(id))
		}
		return nil, pairingOpError(err)
	}
	s.log.Infof("device pairing renamed device=%s label=%q", short(id), label)
	_ = s.broadcast("device.pair.changed", map[string]any{}, nil, true)
	return map[string]any{"deviceId": id, "label": label}, nil
}

func runRotate(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	op, err := startTokenOp(env, params, "device.token.rotate", "rotation", msgRotateDenied)
	if err != nil {
		return nil, err
	}
	s, p, dc, deny := op.s, op.p, op.dc, op.deny
	var scopes []string
	if p.Scopes != nil {
		scopes = nonNil(*p.Scopes)
	}
	// Only the device itself gets the token in the answer; for any other
	// caller (even an admin) it is withheld, as the original.
	inBand := dc.deviceID != "" && dc.deviceID == p.DeviceID
	r, err := s.pairing.rotateToken(p.DeviceID, p.Role, scopes, dc.tokenCallerScopes(p.Role), !inBand, nowMs())
	if err != nil {
		return nil, tokenOpError(err, deny)
	}
	s.log.Infof("device token rotated device=%s role=%s scopes=%s", short(p.DeviceID), p.Role, strings.Join(r.entry.Scopes, ","))
	s.disconnectDevice(dc, p.DeviceID, p.Role, reasonTokenRotated)
	out := map[string]any{"deviceId": p.DeviceID, "role": p.Role, "scopes": nonNil(r.entry.Scopes),
		"rotatedAtMs": r.entry.RotatedAtMs, "tokenDelivery": "withheld-cross-device"}
	if inBand {
		out["token"], out["tokenDelivery"] = r.token, "in-band"
	}
	return out, nil
}

func runRevoke(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
	op, err := startTokenOp(env, params, "device.token.revoke", "revocation", msgRevokeDenied)
	if err != nil {
		return nil, err
	}
	s, p, dc, deny := op.s, op.p, op.dc, op.deny
	t, err := s.pairing.revokeToken(p.DeviceID, p.Role, dc.tokenCallerScopes(p.Role), nowMs())
	if err != nil {
		return nil, tokenOpError(err, deny)
	}
	s.log.Infof("device token revoked device=%s role=%s", short(p.DeviceID), p.Role)
	s.disconnectDevice(dc, p.DeviceID, p.Role, reasonTokenRevoked)
	return map[string]any{"deviceId": p.DeviceID, "role": t.Role, "revokedAtMs": t.RevokedAtMs}, nil
}

// tokenOpError turns a store refusal into the denial (its reason logged);
// other errors (a failed save) pass through.
func tokenOpError(err error, deny func(string) error) error {
	for _, e := range []error{errTokenUnknown, errTokenOutsideBase, errTokenCallerScope} {
		if errors.Is(err, e) {
			return deny(err.Error())
		}
	}
	return err
}

// tokenOp is what device.token.rotate and revoke start from: the server,
// the params, the caller and the refusal the original gives (logged with
// its reason), once the caller may manage that device and role at all.
type tokenOp struct {
	s    *Server
	p    tokenParams
	dc   deviceCaller
	deny func(reason string) error
}

func startTokenOp(env *tools.Env, params json.RawMessage, method, what, denied string) (*tokenOp, error) {
	s, err := serverFrom(env, method)
	if err != nil {
		return nil, err
	}
	p, err := decodeTokenParams(params)
	if err != nil {
		return nil, err
	}
	op := &tokenOp{s: s, p: p, dc: callerOf(env)}
	op.deny = func(reason string) error {
		s.log.Warnf("device token %s denied device=%s role=%s reason=%s", what, short(p.DeviceID), p.Role, reason)
		return tools.Errorf(protocol.ErrInvalidRequest, "%s", denied)
	}
	switch {
	case op.dc.deniesCrossDevice(p.DeviceID):
		return nil, op.deny("device-ownership-mismatch")
	case op.dc.deniesRole(p.Role):
		return nil, op.deny("role-management-requires-admin")
	}
	return op, nil
}
