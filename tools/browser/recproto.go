package browser

// The recorder's protocol, shared by the process (recorder.go) and its
// clients (recclient.go): the spec `openclaw __browser-recorder` reads on
// stdin, and the one-line JSON requests of its Unix socket.

import "github.com/openclaw-go/openclaw/netguard"

// recorderEntry is the hidden subcommand's name (`openclaw __browser-recorder`).
const recorderEntry = "browser-recorder"

// recorderSpec is what start hands the recorder (JSON on its stdin).
type recorderSpec struct {
	Dir      string `json:"dir"`
	StateDir string `json:"stateDir"`
	WS       string `json:"ws"`
	Sock     string `json:"sock"`
	// Guard is the request guard to enforce from the start (guard.go).
	Guard *netguard.Policy `json:"guard,omitempty"`
}

// recRequest is one call over the socket.
type recRequest struct {
	Op         string   `json:"op"`
	TargetID   string   `json:"targetId,omitempty"`
	Seq        int64    `json:"seq,omitempty"`
	TimeoutMs  int      `json:"timeoutMs,omitempty"`
	Level      string   `json:"level,omitempty"`
	SinceLast  bool     `json:"sinceLast,omitempty"`
	Limit      int      `json:"limit,omitempty"`
	Filter     string   `json:"filter,omitempty"`
	Clear      bool     `json:"clear,omitempty"`
	ID         int64    `json:"id,omitempty"`
	MaxChars   int      `json:"maxChars,omitempty"`
	Accept     bool     `json:"accept,omitempty"`
	PromptText string   `json:"promptText,omitempty"`
	Width      int      `json:"width,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Height     int      `json:"height,omitempty"`
	// Guard (op guard) replaces the request guard's policy.
	Guard *netguard.Policy `json:"guard,omitempty"`
	// ExpectDownload: settle also waits for a download to begin.
	ExpectDownload bool `json:"expectDownload,omitempty"`
	// SyncToken (settle): the act's own evaluation already sent this
	// marker through the tab's sync binding (actSyncPrefix), so settle
	// waits for it instead of sending one.
	SyncToken string `json:"syncToken,omitempty"`
}
