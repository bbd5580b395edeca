package gateway

import (
	"encoding/json"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// Events a handler's sink sends to the connection that made the request
// (targeted frames, no seq, like node.invoke.request): the original has no
// per-request progress event, so these names are ours. Both carry the
// request id so a client with several calls in flight can tell them apart.
const (
	// EventToolProgress: {"id":<request id>,"message","done","total"}
	// (total -1 when unknown).
	EventToolProgress = "tool.progress"
	// EventToolEvent: {"id":<request id>,"name","payload"}.
	EventToolEvent = "tool.event"
)

// progressEvent is one progress report.
type progressEvent struct {
	ID      string `json:"id,omitempty"`
	Message string `json:"message"`
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
}

// namedEvent is one handler event.
type namedEvent struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name"`
	Payload any    `json:"payload,omitempty"`
}

// connSink is the gateway's tools.Sink for one request: event frames to
// the calling connection only. Progress is dropped when the client reads
// too slowly (the next report supersedes it); events are not, so a client
// that stops reading is closed as a slow consumer rather than silently
// missing them.
type connSink struct {
	c  *conn
	id string
}

var _ tools.Sink = (*connSink)(nil)

func (k *connSink) Progress(msg string, done, total int64) {
	k.send(EventToolProgress, progressEvent{ID: k.id, Message: msg, Done: done, Total: total}, sendDrop)
}

func (k *connSink) Event(name string, payload any) {
	k.send(EventToolEvent, namedEvent{ID: k.id, Name: name, Payload: payload}, sendClose)
}

func (k *connSink) send(event string, payload any, mode int) {
	if k == nil || k.c == nil {
		return
	}
	b, err := json.Marshal(payload)
	if err != nil {
		k.c.s.log.Warnf("encode %s event: %v", event, err)
		return
	}
	frame, err := json.Marshal(protocol.Event{Type: protocol.TypeEvent, Event: event, Payload: b})
	if err != nil {
		return
	}
	_ = k.c.send(frame, mode)
}
