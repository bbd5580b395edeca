package nodes_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/nodes"
)

// node.event is rate-limited per node: a flood of valid host stats is cut
// to the node's budget, the excess answered handled:false
// "rate_limited" and counted (node.describe droppedEvents), and the
// stats that pass reach the store coalesced, not one write each. Before,
// 22k events in 20 s were each a goroutine and a database write.
func TestNodeEventFloodIsLimited(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	n := paired(t, g, op, "chatty", []string{"system.which"})

	// Count the gateway's writes of node records with a trigger in the
	// real database file.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(g.Dir, "openclaw.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE test_writes (n INTEGER)`,
		`CREATE TRIGGER test_count_update AFTER UPDATE ON nodes_paired BEGIN INSERT INTO test_writes VALUES (1); END`,
		`CREATE TRIGGER test_count_insert AFTER INSERT ON nodes_paired BEGIN INSERT INTO test_writes VALUES (1); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	stats := map[string]any{"event": "node.host.stats", "payloadJSON": `{"cpuCount":4,"memoryTotalBytes":1000,"memoryFreeBytes":500}`}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	handled, limited := 0, 0
	for i := 0; i < 5000 && limited < 50; i++ {
		raw, err := n.conn.Call(ctx, "node.event", stats)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		r := gjson.ParseBytes(raw)
		switch {
		case r.Get("handled").Bool():
			handled++
		case r.Get("reason").String() == "rate_limited":
			limited++
		default:
			t.Fatalf("event %d: %s", i, raw)
		}
	}
	if limited == 0 {
		t.Fatalf("%d stats events in a burst, none refused: node.event has no rate limit", handled)
	}
	if handled < 100 {
		t.Errorf("only %d events passed: the burst budget is 100", handled)
	}
	var writes int
	if err := db.QueryRow(`SELECT count(*) FROM test_writes`).Scan(&writes); err != nil {
		t.Fatal(err)
	}
	if writes > 3 {
		t.Errorf("%d stats events passed and the store was written %d times: not coalesced", handled, writes)
	}
	d := call(t, op, "node.describe", map[string]any{"nodeId": n.id.DeviceID})
	if got := d.Get("droppedEvents").Int(); got != int64(limited) {
		t.Errorf("describe droppedEvents %d, want %d: %s", got, limited, d.Raw)
	}
	if r := call(t, op, "node.list", map[string]any{}); !r.Get("nodes.0.connected").Bool() {
		t.Errorf("node after the flood: %s", r.Raw)
	}
}

// Past the pending-request cap the oldest request is dropped, and
// node.pair.list and `nodes pending` say how many (the original drops them
// without a word).
func TestPendingCapSaysWhatItDropped(t *testing.T) {
	defer nodes.SetMaxPending(2)()
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	for _, name := range []string{"one", "two", "three"} {
		nd := newFakeNode(t, name, []string{"system.which"})
		nd.connect(g, name, []string{"system.which"})
		waitNode(t, op, nd.id.DeviceID)
	}
	l := call(t, op, "node.pair.list", map[string]any{})
	if len(l.Get("pending").Array()) != 2 || l.Get("dropped").Int() != 1 || l.Get("maxPending").Int() != 2 {
		t.Fatalf("node.pair.list past the cap: %s", l.Raw)
	}
	out := toolCall(t, op, "nodes", map[string]any{"action": "pending"})
	var b bytes.Buffer
	if err := tools.Lookup("nodes.pending").Render(&b, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "1 older pending requests were dropped (the gateway keeps at most 2)") {
		t.Errorf("nodes pending rendered:\n%s", b.String())
	}
}
