package policy

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"exec", "exec"},
		{"  Exec\t", "exec"},
		{"BASH", "exec"},
		{"apply-patch", "apply_patch"},
		{"Apply-Patch ", "apply_patch"},
		{"automations", "cron"}, // Later spelling accepted (spec §0.2)
		{"\ufeffread", "read"},
		{"", ""},
		{"   ", ""},
		{"Web_*", "web_*"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExpandGroups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       []string
		want     []string // exact result
		contains []string
		excludes []string
	}{
		{ // §5.12 case 1
			name:     "conformance 1: runtime, aliases, fs",
			in:       []string{"group:runtime", "BASH", "apply-patch", "group:fs"},
			contains: []string{"exec", "process", "apply_patch", "read", "write", "edit"},
			excludes: []string{"bash", "apply-patch"},
		},
		{name: "dedupes and keeps order", in: []string{"exec", "group:runtime", "EXEC"}, want: []string{"exec", "process"}},
		{name: "drops empty entries", in: []string{"", "  ", "read"}, want: []string{"read"}},
		{name: "unknown group stays literal", in: []string{"group:nope"}, want: []string{"group:nope"}},
		{name: "globs pass through", in: []string{"web_*", "*"}, want: []string{"web_*", "*"}},
		{name: "nil", in: nil, want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExpandGroups(tc.in)
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for _, c := range tc.contains {
				if !slices.Contains(got, c) {
					t.Errorf("%v lacks %q", got, c)
				}
			}
			for _, c := range tc.excludes {
				if slices.Contains(got, c) {
					t.Errorf("%v contains %q", got, c)
				}
			}
		})
	}
}

func TestResolveProfile(t *testing.T) {
	// §5.12 case 2
	if p := ResolveProfile("coding"); p == nil || !slices.Contains(p.Allow, "group:fs") {
		t.Errorf("coding = %+v, want allow containing group:fs", p)
	}
	for _, name := range []string{"nope", "", "full"} {
		if p := ResolveProfile(name); p != nil {
			t.Errorf("ResolveProfile(%q) = %+v, want nil", name, p)
		}
	}
	// The result is a copy: mutating it must not change Profiles.
	p := ResolveProfile("minimal")
	p.Allow[0] = "exec"
	if Profiles["minimal"].Allow[0] != "session_status" {
		t.Error("ResolveProfile leaked the shared slice")
	}
}

func TestGroupsAndInventory(t *testing.T) {
	// §5.12 case 3
	for _, tool := range []string{"browser", "message", "session_status"} {
		if !slices.Contains(Groups["group:openclaw"], tool) {
			t.Errorf("group:openclaw lacks %s", tool)
		}
	}
	core := CoreTools()
	if len(core) != 24 || !slices.IsSorted(core) {
		t.Errorf("CoreTools() = %v, want 24 sorted names", core)
	}
	core[0] = "x"
	if CoreTools()[0] != "agents_list" {
		t.Error("CoreTools leaked its slice")
	}
	// Every group member is a core tool.
	for g, members := range Groups {
		for _, m := range members {
			if !IsCoreTool(m) {
				t.Errorf("%s member %s is not a core tool", g, m)
			}
		}
	}
	for _, tc := range []struct {
		tool     string
		groups   []string
		profiles []string
	}{
		{"exec", []string{"group:runtime"}, []string{"coding", "full"}},
		{"Bash", []string{"group:runtime"}, []string{"coding", "full"}},
		{"browser", []string{"group:openclaw", "group:ui"}, []string{"full"}},
		{"session_status", []string{"group:openclaw", "group:sessions"}, []string{"minimal", "coding", "messaging", "full"}},
		{"message", []string{"group:messaging", "group:openclaw"}, []string{"messaging", "full"}},
		{"image", []string{"group:openclaw"}, []string{"coding", "full"}},
		{"pdf", nil, []string{"full"}},
		{"plugin_x", nil, []string{"full"}},
	} {
		if got := GroupsOf(tc.tool); !slices.Equal(got, tc.groups) {
			t.Errorf("GroupsOf(%s) = %v, want %v", tc.tool, got, tc.groups)
		}
		if got := ProfilesOf(tc.tool); !slices.Equal(got, tc.profiles) {
			t.Errorf("ProfilesOf(%s) = %v, want %v", tc.tool, got, tc.profiles)
		}
	}
}

func TestPrimaryGroupAndLabel(t *testing.T) {
	cases := map[string]string{"read": "group:fs", "browser": "group:ui", "cron": "group:automation",
		"image": "group:openclaw", "no_such_tool": ""}
	for tool, want := range cases {
		if got := PrimaryGroup(tool); got != want {
			t.Errorf("PrimaryGroup(%s) = %q, want %q", tool, got, want)
		}
	}
	if GroupLabel("group:fs") != "Files" || GroupLabel("") != "Other" || GroupLabel("group:x") != "group:x" {
		t.Errorf("labels: %q %q %q", GroupLabel("group:fs"), GroupLabel(""), GroupLabel("group:x"))
	}
}
