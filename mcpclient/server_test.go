package mcpclient

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names follow the original's projection (agent-bundle-mcp-names):
// safe characters, a letter first, 30-character server part, 64 in all,
// case-insensitive clashes suffixed.
func TestProjectedNames(t *testing.T) {
	safe := SafeServerNames([]string{"Docs", "docs", "my server!", "9lives", strings.Repeat("x", 40)})
	want := map[string]string{"Docs": "Docs", "docs": "docs-2", "my server!": "my-server-", "9lives": "mcp-9lives", strings.Repeat("x", 40): strings.Repeat("x", 30)}
	for in, w := range want {
		if safe[in] != w {
			t.Errorf("server %q -> %q, want %q", in, safe[in], w)
		}
	}
	taken := map[string]bool{}
	cases := []struct{ server, tool, want string }{
		{"ev", "get-sum", "ev__get-sum"},
		{"ev", "Get-Sum", "ev__Get-Sum-2"},
		{"ev", "read.file", "ev__read-file"},
		{"ev", "1st", "ev__tool-1st"},
		{"ev", strings.Repeat("a", 80), "ev__" + strings.Repeat("a", 60)},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool, taken); got != c.want {
			t.Errorf("ToolName(%s, %s) = %s, want %s", c.server, c.tool, got, c.want)
		}
		if n := ToolName(c.server, c.tool, map[string]bool{}); len(n) > 64 {
			t.Errorf("%s is longer than 64", n)
		}
	}
	got := Project([]string{"b", "a"}, func(n string) (Server, []*mcp.Tool) {
		return Server{Name: n, Exclude: []string{"hidden"}}, []*mcp.Tool{{Name: "x"}, {Name: "hidden"}, {Name: " "}}
	})
	var names []string
	for _, t := range got {
		names = append(names, t.Name)
	}
	if strings.Join(names, ",") != "a__x,b__x" {
		t.Errorf("Project = %v", names)
	}
}

func TestResolve(t *testing.T) {
	cases := []struct {
		name      string
		raw       map[string]any
		transport string
		err       string
	}{
		{"stdio", map[string]any{"command": "uvx", "args": []any{"a", 1, "b"}}, TransportStdio, ""},
		{"command wins", map[string]any{"command": "x", "url": "http://h/"}, TransportStdio, ""},
		{"default sse", map[string]any{"url": "https://h/mcp"}, TransportSSE, ""},
		{"type http", map[string]any{"url": "https://h/mcp", "type": "http"}, TransportStreamable, ""},
		{"transport wins", map[string]any{"url": "https://h/mcp", "type": "sse", "transport": "streamable-http"}, TransportStreamable, ""},
		{"nothing", map[string]any{"args": []any{"x"}}, "", "neither a command"},
		{"stdio no command", map[string]any{"transport": "stdio", "url": "http://h/"}, "", "non-empty command"},
		{"ws url", map[string]any{"url": "ws://h/mcp"}, "", "only http and https"},
		{"bad transport", map[string]any{"url": "http://h/", "transport": "grpc"}, "", "not supported"},
		{"bad url", map[string]any{"url": "http://"}, "", "not a valid URL"},
	}
	for _, c := range cases {
		s, err := Resolve(c.name, c.raw)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v, want %q", c.name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && s.Transport != c.transport:
			t.Errorf("%s: transport %s, want %s", c.name, s.Transport, c.transport)
		}
	}
	s, _ := Resolve("t", map[string]any{"command": "x", "args": []any{"a", 1, "b"}, "enabled": false, "requestTimeoutMs": 1500.0,
		"connectionTimeoutMs": -1.0, "workingDirectory": "/tmp", "env": map[string]any{"N": 2.0, "B": true, "ld_preload": "x"}})
	if s.Enabled || s.RequestTimeout != 1500*time.Millisecond || s.ConnectTimeout != DefaultConnectTimeout || s.Cwd != "/tmp" ||
		strings.Join(s.Args, " ") != "a b" || s.Env["N"] != "2" || s.Env["B"] != "true" || len(s.DroppedEnv) != 1 {
		t.Errorf("resolved %+v", s)
	}
}

func TestToolFilterGlobs(t *testing.T) {
	s := Server{Include: []string{"read_*", "list_directory", "*_file*x"}, Exclude: []string{"read_media*"}}
	for tool, want := range map[string]bool{
		"read_text_file": true, "read_media_file": false, "list_directory": true, "list_directory2": false,
		"write_file": false, "my_filexx": true, "my_file": false, "my_file_x": true,
	} {
		if got := s.Allows(tool); got != want {
			t.Errorf("Allows(%s) = %v, want %v", tool, got, want)
		}
	}
	if !(Server{}).Allows("anything") {
		t.Error("no filter should allow everything")
	}
}

func TestLaunchRedactsSecrets(t *testing.T) {
	s := Server{Transport: TransportStdio, Command: "srv", Args: []string{"--api-key=abc", "--token", "xyz", "Bearer", "qqq", "--port", "1"}, Cwd: "/w"}
	got := s.Launch()
	if strings.Contains(got, "abc") || strings.Contains(got, "xyz") || strings.Contains(got, "qqq") || !strings.Contains(got, "--port 1 (cwd=/w)") {
		t.Errorf("Launch = %s", got)
	}
	h := Server{Transport: TransportStreamable, URL: "https://user:pw@h.example/mcp?token=t0k&x=1"}
	if got := h.Launch(); strings.Contains(got, "pw") || strings.Contains(got, "t0k") || !strings.Contains(got, "x=1") {
		t.Errorf("Launch = %s", got)
	}
}
