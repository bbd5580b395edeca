package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
)

// A node's large but legal answer reaches the caller once: payload only,
// payloadJSON null. Before, it went out as payload and payloadJSON (two
// copies, a 48 MB frame over the 25 MiB limit): the caller's socket died
// with 1006. Small answers keep both, as the original's.
func TestLargeAnswerSentOnce(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "big", []string{"system.which"})
	const size = 24_000_000
	blob := `{"blob":"` + strings.Repeat("a", size) + `"}`
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		return map[string]any{"ok": true, "payloadJSON": blob}, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raw, err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "big1",
		"params": map[string]any{"bins": []string{"sh"}}})
	if err != nil {
		t.Fatalf("a 24 MB answer: %v", err)
	}
	if len(raw) > size+4096 {
		t.Errorf("the answer is %d bytes for a %d-byte payload: sent more than once", len(raw), len(blob))
	}
	r := gjson.ParseBytes(raw)
	if got := len(r.Get("payload.blob").String()); got != size || r.Get("payloadJSON").Type != gjson.Null {
		t.Errorf("payload.blob is %d bytes, payloadJSON %s", got, r.Get("payloadJSON").Type)
	}

	// A small answer carries both copies, as the original's.
	n.answer = whichAnswer
	r = call(t, op, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "small1",
		"params": map[string]any{"bins": []string{"sh"}}})
	if r.Get("payload.bins.sh").String() != "/usr/bin/sh" || r.Get("payloadJSON").String() != `{"bins":{"sh":"/usr/bin/sh"}}` {
		t.Errorf("small answer: %s", r.Raw)
	}
}

// An answer that fits the node's frame but not the caller's (the gateway's
// envelope is larger) is refused with an error that names the limit,
// rather than sent as a frame the caller cannot read.
func TestAnswerOverFrameLimitRefused(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "huge", []string{"system.which"})
	blob := `{"blob":"` + strings.Repeat("b", protocol.MaxPayload-1000) + `"}`
	n.answer = func(req gjson.Result) (map[string]any, bool) {
		return map[string]any{"ok": true, "payload": json.RawMessage(blob)}, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := op.Call(ctx, "node.invoke", map[string]any{"nodeId": n.id.DeviceID, "command": "system.which", "idempotencyKey": "huge1",
		"params": map[string]any{"bins": []string{"sh"}}})
	var e *client.CallError
	if !errors.As(err, &e) {
		t.Fatalf("over the limit: want a gateway error, got %d bytes and %v", len(out), err)
	}
	if e.Code != protocol.ErrUnavailable || !strings.Contains(e.Message, "PAYLOAD_TOO_LARGE") || !strings.Contains(e.Message, "frame limit") {
		t.Fatalf("over the limit: %s %s", e.Code, e.Message)
	}
	// The operator's connection is still up.
	if r := call(t, op, "node.list", map[string]any{}); !r.Get("nodes").IsArray() {
		t.Fatalf("node.list after the refusal: %s", r.Raw)
	}
}
