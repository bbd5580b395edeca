package exectool

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// process list on a terminal: the columns line up whatever the lengths of
// ids, statuses and runtimes (issue 18 item 14).
func TestProcessListColumnsAlign(t *testing.T) {
	res := gjson.Parse(`{"content":[{"type":"text","text":"x"}],"details":{"sessions":[
		{"sessionId":"sharp-glade","status":"running","pid":12,"runtimeMs":1000,"command":"sleep 1"},
		{"sessionId":"neat-cloud-2","status":"completed","exitCode":0,"pid":12345,"runtimeMs":3723000,"command":"make\nbuild"}]}}`)
	render := tools.Lookup("process.list").Render
	var b bytes.Buffer
	if err := render(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", b.String())
	}
	for _, col := range []string{"STATUS", "PID", "RUNTIME", "COMMAND"} {
		at := strings.Index(lines[0], col)
		for _, l := range lines[1:] {
			if at >= len(l) || l[at-1] != ' ' || l[at] == ' ' {
				t.Errorf("column %s (at %d) does not line up in %q:\n%s", col, at, l, b.String())
			}
		}
	}
	if !strings.Contains(lines[2], "completed (0)") || !strings.HasSuffix(lines[2], "make build") {
		t.Errorf("row: %q", lines[2])
	}
	// No sessions: the result text.
	b.Reset()
	render(&b, gjson.Parse(`{"content":[{"type":"text","text":"No running or recent sessions."}],"details":{"sessions":[]}}`))
	if b.String() != "No running or recent sessions.\n" {
		t.Errorf("empty: %q", b.String())
	}
}
