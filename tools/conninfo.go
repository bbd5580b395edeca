package tools

import "github.com/openclaw-go/openclaw/protocol"

// ConnInfo is what a service learns about a gateway connection once it
// passed its handshake: who it is and, for a node, what it declared in
// connect (§3.2). Slices and maps are the service's own copies.
type ConnInfo struct {
	ConnID      string
	Role        string // "operator" or "node"
	DeviceID    string // the verified device id ("" for a device-less operator)
	Client      protocol.ClientInfo
	Caps        []string
	Commands    []string
	Permissions map[string]bool
	PathEnv     string
	RemoteIP    string
	// Local is a direct loopback connection (no proxy headers, no Origin).
	Local         bool
	Protocol      int
	ConnectedAtMs int64
}

// ConnWatcher is a running service the gateway tells of every connection
// right after its hello-ok is queued and before any of its requests run
// (the nodes registry learns of node hosts this way). ConnReady must not
// block: the connection waits for it. Env.Conns.Closed says when the
// connection goes.
type ConnWatcher interface {
	ConnReady(info ConnInfo)
}
