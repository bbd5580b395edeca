package browser

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
)

// Issue 30 item 23: on a terminal `browser tabs` is a table (the tabs
// action's own result, as its handler builds it), not one line of JSON.
func TestRenderTabsIsATable(t *testing.T) {
	res, err := tools.JSONResult(map[string]any{"running": true, "tabs": []tab{
		{SuggestedTargetID: "mail", TabID: "t1", Label: "mail", TargetID: "8A1F00C2D3E4", Title: "Inbox (3)", URL: "https://mail.example.com/", Type: "page", Current: true},
		{SuggestedTargetID: "t2", TabID: "t2", TargetID: "77B2AA0011FF", Title: "Example Domain", URL: "https://example.com/", Type: "page"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	var out bytes.Buffer
	if err := tools.Lookup("browser.tabs").Render(&out, gjson.ParseBytes(b)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || strings.Contains(out.String(), "{") {
		t.Fatalf("want a header and two rows, no JSON:\n%s", out.String())
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "Tab Title URL" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) < 4 || f[0] != "*" || f[1] != "mail" || f[len(f)-1] != "https://mail.example.com/" {
		t.Errorf("current tab row %q", lines[1])
	}
	if f := strings.Fields(lines[2]); len(f) < 3 || f[0] != "t2" || f[len(f)-1] != "https://example.com/" {
		t.Errorf("second tab row %q", lines[2])
	}
	// Columns line up: each URL starts where the header's does.
	col := strings.Index(lines[0], "URL")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[col:], "https://") {
			t.Errorf("URL column not aligned at %d: %q", col, l)
		}
	}
	out.Reset()
	empty, _ := tools.JSONResult(map[string]any{"running": true, "tabs": []tab{}})
	b, _ = json.Marshal(empty)
	if err := renderTabs(&out, gjson.ParseBytes(b)); err != nil || out.String() != "No tabs open.\n" {
		t.Errorf("no tabs: %v %q", err, out.String())
	}
}

// A profile the config gets wrong shows its error in the table.
func TestRenderProfilesShowsErrors(t *testing.T) {
	res, _ := tools.JSONResult(map[string]any{"profiles": []map[string]any{
		{"name": "openclaw", "cdpPort": 18800, "cdpUrl": "", "running": true, "color": "#FF4500", "isDefault": true, "isRemote": false},
		{"name": "bad", "error": "browser.profiles.bad: cdpPort 99999 out of range"},
	}})
	b, _ := json.Marshal(res)
	var out bytes.Buffer
	if err := renderProfiles(&out, gjson.ParseBytes(b)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"Profile", "Error", "openclaw", "port 18800", "#FF4500", "cdpPort 99999 out of range"} {
		if !strings.Contains(got, want) {
			t.Errorf("profiles table lacks %q:\n%s", want, got)
		}
	}
}
