package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/route"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/urfave/cli/v2"
)

// run executes an action in this process or relays it to a gateway, per
// DESIGN.md "Where an action runs": the decision and the relay are the
// route package's, which `mcp serve` and `node run` share; the CLI makes
// its one call on a connection of its own. Either way it goes through the
// one door (tools.Invoke here, the gateway's dispatch there), and params
// are encoded once.
func (r *runtime) run(c *cli.Context, a *tools.Action, params map[string]any) (json.RawMessage, error) {
	rt, err := r.router(c, c.Duration("timeout"))
	if err != nil {
		return nil, err
	}
	relay := rt.Relays(a)
	if err := r.resolvePaths(a, params, relay, rt.Target()); err != nil {
		return nil, err
	}
	if relay {
		t := rt.Target()
		r.relayed = &t
	}
	return rt.Run(c.Context, a, params)
}

// router is this command line's route: its gateway, --remote (or a --url
// typed here, which relays even a local tool), the timeout, and the local
// Env built only if the action runs here.
func (r *runtime) router(c *cli.Context, timeout time.Duration) (*route.Router, error) {
	target, err := r.target(c)
	if err != nil {
		return nil, err
	}
	return route.New(route.Options{
		Target: target, Remote: c.Bool("remote") || r.urlFlag, Timeout: timeout, ExpectFinal: r.expectFinal,
		Env: func() (*tools.Env, error) { return r.Env(c) },
		Client: client.Options{ClientID: "cli", ClientMode: "cli", Version: Version,
			OnEvent: r.sink.gatewayEvent}, // tool.progress / tool.event for this call (sink.go)
	}), nil
}

// resolvePaths applies the CLI's one rule for relative file paths
// (Action.PathParams): they mean the current directory. Locally and when
// relaying to a gateway on this host (a loopback URL) they are made
// absolute before invoking, so both calls name the same file and print the
// same bytes. A gateway on another host cannot see this directory: paths go
// as typed, resolve in its agent workspace, and a note on stderr says so.
func (r *runtime) resolvePaths(a *tools.Action, params map[string]any, relay bool, t route.Target) error {
	var rel []string
	for _, name := range a.PathParams {
		if s, ok := params[name].(string); ok && isRelativePath(s) {
			rel = append(rel, name)
		}
	}
	if len(rel) == 0 {
		return nil
	}
	if relay && !t.Loopback() {
		for _, name := range rel {
			fmt.Fprintf(r.stderr, "openclaw: note: %s %q is relative and the gateway at %s is on another host: it resolves in that gateway's agent workspace\n",
				name, params[name], t.URL)
		}
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	for _, name := range rel {
		params[name] = filepath.Join(wd, params[name].(string))
	}
	return nil
}

// isRelativePath: a plain relative path (not absolute, ~, @ or a URL).
func isRelativePath(s string) bool {
	if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "@") {
		return false
	}
	return !strings.Contains(s, "://")
}

// target resolves the gateway URL and credentials: --url/OPENCLAW_GATEWAY_URL,
// then gateway.remote.url in remote mode, then the local gateway's port.
// Config credentials apply only to the gateway the config describes.
func (r *runtime) target(c *cli.Context) (route.Target, error) {
	flags := route.Target{URL: c.String("url"), Token: c.String("token"), Password: c.String("password")}
	if flags.URL != "" {
		return route.FromConfig(flags, nil, 0), nil // no config load for a named gateway
	}
	cfg, err := r.Config(c)
	if err != nil {
		return flags, err
	}
	paths, err := r.Paths(c)
	if err != nil {
		return flags, err
	}
	return route.FromConfig(flags, cfg, gateway.ResolvePort(0, paths, cfg, r.getenv)), nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
