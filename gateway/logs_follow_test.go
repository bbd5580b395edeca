package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// nextLogBatch returns the next logs.lines batch sent to c.
func nextLogBatch(t *testing.T, c *tclient) gjson.Result {
	t.Helper()
	for {
		f := c.nextEvent(t, EventToolEvent, 10*time.Second)
		if v := gjson.ParseBytes(f.Payload); v.Get("name").Str == "logs.lines" {
			return v.Get("payload")
		}
	}
}

// logs.follow sends a line written after the stream started, without the
// client asking again; the gateway stopping ends the request.
func TestLogsFollowStreamsNewLines(t *testing.T) {
	ts := startServer(t, Options{})
	c := dialConnected(t, ts.url)
	if !strings.Contains(string(c.hello), `"logs.follow"`) {
		t.Fatal("hello-ok does not advertise logs.follow")
	}
	_, res := c.send("logs.follow", map[string]any{"limit": 10})
	first := nextLogBatch(t, c) // the tail: the stream is live
	if !strings.Contains(first.Get("lines").Raw, "listening on") {
		t.Errorf("first batch is not the tail: %s", first.Raw)
	}
	marker := "follow-marker-" + t.Name()
	ts.s.log.Infof("%s", marker)
	for {
		b := nextLogBatch(t, c)
		if strings.Contains(b.Get("lines").Raw, marker) {
			if b.Get("cursor").Int() <= first.Get("cursor").Int() {
				t.Errorf("cursor did not advance: %d → %d", first.Get("cursor").Int(), b.Get("cursor").Int())
			}
			break
		}
	}
	select {
	case f := <-res:
		t.Fatalf("logs.follow answered while following: %+v", f)
	default:
	}
	go ts.stop()
	select {
	case f := <-res:
		if !f.OK || !gjson.GetBytes(f.Payload, "cursor").Exists() {
			t.Errorf("final answer at shutdown: %+v", f)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs.follow did not end at shutdown")
	}
}
