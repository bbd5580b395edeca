package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/tools"
)

// The CLI front door runs a local action through tools.Invoke (the
// gateway's front doors are proved in gateway/dispatch_test.go).
func TestCLIGoesThroughInvoke(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENCLAW_STATE_DIR", filepath.Join(dir, "state"))
	t.Setenv("HOME", dir)
	file := filepath.Join(dir, "n.txt")
	if err := os.WriteFile(file, []byte("hi there\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []tools.Call
	defer tools.Default.OnInvoke(func(c tools.Call) {
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
	})()
	parsed := 0 // parses of params bytes by the door or a typed handler
	defer tools.Default.OnDecode(func(string) {
		mu.Lock()
		parsed++
		mu.Unlock()
	})()
	var out, errb bytes.Buffer
	if code := Main([]string{"openclaw", "read", file, "--json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if parsed != 0 {
		t.Errorf("a local read parsed its params %d times; the CLI's value needs none", parsed)
	}
	// The CLI hands the params it built as a value (parsed by nobody).
	if len(seen) != 1 || seen[0].ID != "read" || seen[0].Value.(map[string]any)["path"] != file {
		t.Fatalf("read did not go through tools.Invoke once: %+v", seen)
	}
	if !strings.Contains(out.String(), "hi there") {
		t.Errorf("output %q", out.String())
	}
}

// A gateway on another host cannot see this directory: relative paths go
// as typed and the CLI says where they will resolve.
func TestResolvePathsRule(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	a := &tools.Action{Tool: "zz", PathParams: []string{"path"}}
	var errb bytes.Buffer
	r := &runtime{stderr: &errb}
	for _, tc := range []struct {
		relay bool
		url   string
		in    string
		want  string
		note  bool
	}{
		{false, "", "notes.md", filepath.Join(wd, "notes.md"), false},
		{true, "ws://127.0.0.1:1", "sub/notes.md", filepath.Join(wd, "sub/notes.md"), false},
		{true, "wss://gw.example.com", "notes.md", "notes.md", true},
		{true, "ws://127.0.0.1:1", "/abs/x", "/abs/x", false},
		{true, "ws://127.0.0.1:1", "~/x", "~/x", false},
		{true, "ws://127.0.0.1:1", "file:///x", "file:///x", false},
	} {
		errb.Reset()
		p := map[string]any{"path": tc.in}
		if err := r.resolvePaths(a, p, tc.relay, route.Target{URL: tc.url}); err != nil {
			t.Fatal(err)
		}
		if p["path"] != tc.want || (errb.Len() > 0) != tc.note {
			t.Errorf("%+v: got %v, note %q", tc, p["path"], errb.String())
		}
	}
}
