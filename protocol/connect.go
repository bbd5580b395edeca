package protocol

import (
	"unicode/utf8"
)

// Connect-time error.details.code values (§2.4, §4.1, §3.5).
const (
	DetailAuthRequired           = "AUTH_REQUIRED"
	DetailAuthUnauthorized       = "AUTH_UNAUTHORIZED"
	DetailAuthTokenMissing       = "AUTH_TOKEN_MISSING"
	DetailAuthTokenMismatch      = "AUTH_TOKEN_MISMATCH"
	DetailAuthTokenNotConfigured = "AUTH_TOKEN_NOT_CONFIGURED"
	DetailAuthPasswordMissing    = "AUTH_PASSWORD_MISSING"
	DetailAuthPasswordMismatch   = "AUTH_PASSWORD_MISMATCH"
	DetailAuthPasswordNotConfig  = "AUTH_PASSWORD_NOT_CONFIGURED"
	DetailAuthDeviceTokenMismat  = "AUTH_DEVICE_TOKEN_MISMATCH"
	DetailAuthRateLimited        = "AUTH_RATE_LIMITED"
	DetailProtocolMismatch       = "PROTOCOL_MISMATCH"
	DetailDeviceIdentityRequired = "DEVICE_IDENTITY_REQUIRED"
	DetailDeviceAuthInvalid      = "DEVICE_AUTH_INVALID"
	DetailDeviceIDMismatch       = "DEVICE_AUTH_DEVICE_ID_MISMATCH"
	DetailDeviceSigExpired       = "DEVICE_AUTH_SIGNATURE_EXPIRED"
	DetailDeviceNonceRequired    = "DEVICE_AUTH_NONCE_REQUIRED"
	DetailDeviceNonceMismatch    = "DEVICE_AUTH_NONCE_MISMATCH"
	DetailDeviceSigInvalid       = "DEVICE_AUTH_SIGNATURE_INVALID"
	DetailDevicePubKeyInvalid    = "DEVICE_AUTH_PUBLIC_KEY_INVALID"
	DetailPairingRequired        = "PAIRING_REQUIRED"
	DetailMissingScope           = "MISSING_SCOPE"
)

// Close reasons with fixed text (§2.5).
const (
	ReasonProtocolMismatch   = "protocol mismatch"
	ReasonPreauthTooLarge    = "preauth payload too large"
	ReasonServiceRestart     = "service restart"
	ReasonSlowConsumer       = "slow consumer"
	ReasonRepeatedUnauth     = "repeated unauthorized calls"
	ReasonTooManyHandshake   = "too many pending handshake frames"
	ReasonHandshakeTimeout   = "handshake timeout"
	ReasonPayloadTooLarge    = "payload too large"
	ReasonInvalidHandshake   = "invalid handshake"
	ReasonGatewayStopping    = "gateway stopping"
	MaxCloseReasonBytes      = 123
	DeviceSignatureSkewMs    = 120000
	MaxPendingHandshakeFrame = 15
)

// Client ids and modes with special handling on the server.
const (
	ClientIDCLI           = "cli"
	ClientIDGatewayClient = "gateway-client"
	ClientIDNodeHost      = "node-host"
	ClientIDControlUI     = "openclaw-control-ui"
	ModeCLI               = "cli"
	ModeBackend           = "backend"
	ModeNode              = "node"
	ModeProbe             = "probe"
	ModeWebchat           = "webchat"
	ModeUI                = "ui"
)

// TruncateCloseReason cuts a close reason to the 123 bytes a WebSocket close
// frame can carry, without splitting a UTF-8 sequence.
func TruncateCloseReason(s string) string {
	if len(s) <= MaxCloseReasonBytes {
		return s
	}
	cut := MaxCloseReasonBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Negotiate applies the server's protocol rule (§3.4) and returns the version
// to serve, or ok=false for a protocol mismatch.
func Negotiate(minP, maxP int, role, mode string) (version int, ok bool) {
	if minP <= Version && Version <= maxP {
		return Version, true
	}
	if mode == ModeProbe && minP <= Version && maxP >= MinProbeVersion {
		return min(maxP, Version), true
	}
	if role == RoleNode && mode == ModeNode && minP <= MinNodeVersion && MinNodeVersion <= maxP {
		return MinNodeVersion, true
	}
	return 0, false
}

// SignatureToken is the token bound into a device signature: the first
// non-empty of auth.token, auth.deviceToken, auth.bootstrapToken.
func (a *ConnectAuth) SignatureToken() string {
	if a == nil {
		return ""
	}
	for _, t := range []string{a.Token, a.DeviceToken, a.BootstrapToken} {
		if t != "" {
			return t
		}
	}
	return ""
}
