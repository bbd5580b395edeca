package protocol

// Event names the gateway emits itself (§6.1, §6.3).
const (
	EventConnectChallenge = "connect.challenge"
	EventTick             = "tick"
	EventPresence         = "presence"
	EventHealth           = "health"
	EventHeartbeat        = "heartbeat"
	EventShutdown         = "shutdown"
	EventConfigChanged    = "config.changed"
)

// Events is the list advertised in hello-ok.features.events: the reference
// server's list (§6.1) plus config.changed. Clients use it for discovery
// only, so advertising the standard names keeps UIs on their normal path.
var Events = []string{
	"connect.challenge", "agent", "chat", "chat.metadata.changed", "models.snapshot",
	"ui.command", "session.approval", "session.message", "session.observer",
	"session.operation", "session.sharing", "session.sharing.evidence",
	"session.suggestion", "session.typing", "session.tool", "sessions.changed",
	"presence", "tick", "talk.mode", "talk.event", "talk.voice.change", "shutdown",
	"gateway.suspension", "health", "heartbeat", "cron", "task", "task.suggestion",
	"node.pair.requested", "node.pair.resolved", "node.presence", "node.hostStats",
	"node.runnerInventory.changed", "node.invoke.cancel", "node.invoke.input",
	"node.invoke.request", "device.pair.changed", "device.pair.requested",
	"device.pair.resolved", "skills.changed", "plugins.changed",
	"plugins.install.progress", "voicewake.changed", "exec.approval.requested",
	"exec.approval.resolved", "question.requested", "question.resolved",
	"plugin.approval.requested", "plugin.approval.resolved", "terminal.data",
	"terminal.exit", "update.available", "update.run.changed", "mentions.changed",
	"config.changed",
}

// eventScopeExact is the §6.2 guard table for names matched exactly. The
// empty scope means "every authenticated connection, nodes included".
var eventScopeExact = map[string]string{
	"tick": "", "health": "", "heartbeat": "", "shutdown": "",
	"gateway.suspension": "", "update.available": "",

	"agent": ScopeRead, "chat": ScopeRead, "chat.metadata.changed": ScopeRead,
	"cron": ScopeRead, "presence": ScopeRead, "sessions.changed": ScopeRead,
	"node.presence": ScopeRead, "node.hostStats": ScopeRead,
	"node.runnerInventory.changed": ScopeRead, "config.changed": ScopeRead,
	"skills.changed": ScopeRead, "plugins.changed": ScopeRead, "talk.event": ScopeRead,
	"mentions.changed": ScopeRead, "portal.changed": ScopeRead,
	"models.snapshot": ScopeRead, "progressCard.changed": ScopeRead,
	"ui.command": ScopeRead, "users.prefs.changed": ScopeRead,

	"session.approval": ScopeApprovals,

	"terminal.data": ScopeAdmin, "terminal.exit": ScopeAdmin,
	"plugins.install.progress": ScopeAdmin, "update.run.changed": ScopeAdmin,

	"talk.mode": ScopeTalk, "talk.voice.change": ScopeTalk,
}

// eventScopePrefix covers the families guarded by prefix, checked in order.
var eventScopePrefix = []struct{ prefix, scope string }{
	{"exec.approval.", ScopeApprovals},
	{"plugin.approval.", ScopeApprovals},
	{"openclaw.approval.", ScopeApprovals},
	{"node.pair.", ScopePairing},
	{"device.pair.", ScopePairing},
	{"question.", ScopeQuestions},
	{"session.", ScopeRead},
	{"task", ScopeRead},
	{"voicewake.", ScopeRead},
	{"plugin.", ScopeWrite},
}

// EventScope returns the operator scope an event needs (§6.2). scope "" means
// every authenticated connection receives it; known=false means the event is
// not registered and must not be delivered (fail closed).
func EventScope(event string) (scope string, known bool) {
	if s, ok := eventScopeExact[event]; ok {
		return s, true
	}
	for _, p := range eventScopePrefix {
		if len(event) >= len(p.prefix) && event[:len(p.prefix)] == p.prefix {
			return p.scope, true
		}
	}
	return "", false
}

// ShutdownPayload is the payload of the shutdown event; RestartExpectedMs is
// null when no restart is planned.
type ShutdownPayload struct {
	Reason            string `json:"reason"`
	RestartExpectedMs *int64 `json:"restartExpectedMs"`
}

// TickPayload is the payload of the tick event.
type TickPayload struct {
	TS int64 `json:"ts"`
}

// ConfigChangedPayload announces a config write without its content.
type ConfigChangedPayload struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
	TS   int64  `json:"ts"`
}

// PresencePayload is the payload of the presence event.
type PresencePayload struct {
	Presence []PresenceEntry `json:"presence"`
}

// PresenceEntry is one row of system-presence and the presence event.
type PresenceEntry struct {
	Host            string   `json:"host,omitempty"`
	ClientID        string   `json:"clientId,omitempty"`
	IP              string   `json:"ip,omitempty"`
	Version         string   `json:"version,omitempty"`
	Platform        string   `json:"platform,omitempty"`
	DeviceFamily    string   `json:"deviceFamily,omitempty"`
	ModelIdentifier string   `json:"modelIdentifier,omitempty"`
	TimeZone        string   `json:"timeZone,omitempty"`
	Mode            string   `json:"mode,omitempty"`
	Reason          string   `json:"reason,omitempty"`
	Text            string   `json:"text,omitempty"`
	TS              int64    `json:"ts"`
	OnlineSince     int64    `json:"onlineSince,omitempty"`
	DeviceID        string   `json:"deviceId,omitempty"`
	Roles           []string `json:"roles,omitempty"`
	Scopes          []string `json:"scopes,omitempty"`
	InstanceID      string   `json:"instanceId,omitempty"`
}
