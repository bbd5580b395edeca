package commands

import (
	"reflect"
	"testing"
)

// Agent tool names map to CLI words as the issue describes; the wire names
// stay the original's.
func TestCommandPath(t *testing.T) {
	cases := []struct {
		tool, verb string
		multi      bool
		want       []string
	}{
		{"web_fetch", "", false, []string{"web", "fetch"}},
		{"web_search", "", false, []string{"web", "search"}},
		{"sessions_list", "", false, []string{"sessions", "list"}},
		{"session_status", "", false, []string{"sessions", "status"}},
		{"memory_get", "", false, []string{"memory", "get"}},
		{"agents_list", "", false, []string{"agents", "list"}},
		{"read", "", false, []string{"read"}},
		{"exec", "", false, []string{"exec"}},
		{"apply_patch", "", false, []string{"apply-patch"}},
		{"browser", "snapshot", true, []string{"browser", "snapshot"}},
		{"cron", "add", true, []string{"cron", "add"}},
		{"gateway", "config.patch", true, []string{"gateway", "config.patch"}},
		{"nodes", "camera_snap", true, []string{"nodes", "camera", "snap"}},
		{"nodes", "notifications_action", true, []string{"nodes", "notifications", "action"}},
	}
	for _, c := range cases {
		if got := commandPath(c.tool, c.verb, c.multi); !reflect.DeepEqual(got, c.want) {
			t.Errorf("commandPath(%q, %q) = %v, want %v", c.tool, c.verb, got, c.want)
		}
	}
	if kebab("timeoutMs") != "timeout-ms" || kebab("file_path") != "file-path" {
		t.Errorf("kebab: %q %q", kebab("timeoutMs"), kebab("file_path"))
	}
}

func TestNormalizeArgs(t *testing.T) {
	r := newRuntime(nil, nil, nil)
	app := r.newApp()
	cases := []struct{ in, want []string }{
		{[]string{"openclaw", "read", "a.txt", "--offset", "2"}, []string{"openclaw", "read", "--offset", "2", "--", "a.txt"}},
		{[]string{"openclaw", "read", "a.txt", "--json", "--dev"}, []string{"openclaw", "--dev", "read", "--json", "--", "a.txt"}},
		{[]string{"openclaw", "read", "--", "-weird.txt"}, []string{"openclaw", "read", "--", "-weird.txt"}},
		{[]string{"openclaw", "config", "set", "x", "-5"}, []string{"openclaw", "config", "set", "--", "x", "-5"}},
		{[]string{"openclaw", "tools", "list", "--profile", "work"}, []string{"openclaw", "--profile", "work", "tools", "list"}},
	}
	for _, c := range cases {
		if got := normalizeArgs(app, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("normalizeArgs(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
