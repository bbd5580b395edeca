package gateway

// Closing a device's connections after a token change. The original
// answers the request first and then disconnects (so a device rotating its
// own token still receives the new one): connections other than the
// caller's close at once, after what is already queued for them; the
// caller's own closes right after its response is queued.

// Close reasons for a device's connections, as the original's
// ("client invalidated: <reason>", code 4001).
const (
	closeDeviceInvalidated  = 4001
	reasonTokenRotated      = "client invalidated: device-token-rotated"
	reasonTokenRevoked      = "client invalidated: device-token-revoked"
	reasonDevicePairRemoved = "client invalidated: device-pair-removed"
)

// disconnectDevice closes the ready connections of the device (and role,
// when not "") with reason; the calling connection's close waits for its
// response.
func (s *Server) disconnectDevice(dc deviceCaller, deviceID, role, reason string) {
	for _, c := range s.readyConns() {
		if c.sess == nil || c.sess.deviceID != deviceID || (role != "" && c.sess.role != role) {
			continue
		}
		if c == dc.conn && dc.reqID != "" {
			c.afterReply.Store(dc.reqID, func() { c.closeWith(closeDeviceInvalidated, reason) })
			continue
		}
		c.closeWith(closeDeviceInvalidated, reason)
	}
}

// runAfterReply runs what a handler asked to do once the response to
// request id was queued (dispatch.go calls it).
func (c *conn) runAfterReply(id string) {
	if f, ok := c.afterReply.LoadAndDelete(id); ok {
		f.(func())()
	}
}
