package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/tools"
)

// `openclaw devices` and `openclaw tasks` are generated from the gateway's
// device.pair.*, device.token.* and tasks.* methods, as tool commands are
// from tool actions: one verb per registered method, its Summary the usage
// line, its Args the positionals, its schema properties the flags.
func TestMethodGroupsAreGenerated(t *testing.T) {
	r := newRuntime(nil, &bytes.Buffer{}, &bytes.Buffer{})
	for _, g := range []struct {
		name     string
		prefixes []string
	}{{"devices", []string{"device.pair.", "device.token."}}, {"tasks", []string{"tasks."}}} {
		cmd := findCommand(r.newApp().Commands, g.name)
		if cmd == nil {
			t.Fatalf("no %s command", g.name)
		}
		var want []string
		verb := map[string]string{}
		for _, m := range tools.Methods() {
			for _, p := range g.prefixes {
				if a := tools.ByMethod(m); strings.HasPrefix(m, p) && !a.Hidden {
					want = append(want, m)
					verb[m] = strings.TrimPrefix(m, p)
				}
			}
		}
		if len(want) == 0 || len(cmd.Subcommands) != len(want) {
			t.Fatalf("%s has %d verbs for methods %v", g.name, len(cmd.Subcommands), want)
		}
		for _, m := range want {
			a := tools.ByMethod(m)
			sub := findCommand(cmd.Subcommands, verb[m])
			if sub == nil {
				t.Errorf("%s: no verb for %s", g.name, m)
				continue
			}
			if sub.Usage != lowerFirst(a.Summary) {
				t.Errorf("%s %s: usage %q, want the method's summary %q", g.name, sub.Name, sub.Usage, a.Summary)
			}
			if got, want := strings.TrimSpace(sub.ArgsUsage), argsUsageLine(a); got != want {
				t.Errorf("%s %s: args %q, want %q", g.name, sub.Name, got, want)
			}
			if !strings.Contains(sub.Description, "Gateway method: "+m) {
				t.Errorf("%s %s: help does not name %s: %q", g.name, sub.Name, m, sub.Description)
			}
			for _, p := range schemaProps(a.Schema) {
				if !commandHasFlag(sub, kebab(p.Name)) {
					t.Errorf("%s %s: no --%s flag for param %s", g.name, sub.Name, kebab(p.Name), p.Name)
				}
			}
		}
	}
}

// A missing argument is a usage error found against the method's schema
// before any connection (exit 2, not 5 with no gateway listening).
func TestMethodVerbChecksParamsFirst(t *testing.T) {
	t.Setenv("OPENCLAW_STATE_DIR", t.TempDir())
	for _, args := range [][]string{{"devices", "approve"}, {"tasks", "get"}, {"devices", "list", "extra"}} {
		var out, errb bytes.Buffer
		code := Main(append(append([]string{"openclaw"}, args...), "--url", "ws://127.0.0.1:1"), nil, &out, &errb)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errb.String())
		}
	}
}

func commandHasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
