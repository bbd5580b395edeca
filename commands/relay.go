package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// run executes an action in this process or relays it to a gateway, per
// DESIGN.md "Where an action runs". Either way it goes through the one door
// (tools.Invoke here, the gateway's dispatch there), and params are encoded
// once.
func (r *runtime) run(c *cli.Context, a *tools.Action, params map[string]any) (json.RawMessage, error) {
	target, err := r.target(c)
	if err != nil {
		return nil, err
	}
	relay := false
	switch a.Where {
	case tools.Gateway:
		relay = true
	case tools.Either:
		relay = target.explicit || c.Bool("remote")
	case tools.Local:
		relay = c.Bool("remote") || r.urlFlag
	}
	if err := r.resolvePaths(a, params, relay, target); err != nil {
		return nil, err
	}
	ctx := c.Context
	d := c.Duration("timeout")
	if d <= 0 && relay {
		d = 30 * time.Second // the original CLI's default for gateway-backed commands
	}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if !relay {
		env, err := r.Env(c)
		if err != nil {
			return nil, err
		}
		// The params go in as built: validated and handed to typed
		// handlers without an encode and a parse in between.
		return tools.Invoke(ctx, env, tools.Call{ID: a.ID(), Value: params})
	}
	if a.Verb != "" && a.Tool != "" {
		params["action"] = a.Verb // the wire's tools.invoke (the original's too) takes the verb inside args
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", a.ID(), err)
	}
	r.relayed = &target
	if a.Tool == "" {
		return r.dialCall(ctx, target, a.Method, []string{a.RequiredScope()}, raw)
	}
	return r.relayTool(ctx, target, a, raw)
}

// resolvePaths applies the CLI's one rule for relative file paths
// (Action.PathParams): they mean the current directory. Locally and when
// relaying to a gateway on this host (a loopback URL) they are made
// absolute before invoking, so both calls name the same file and print the
// same bytes. A gateway on another host cannot see this directory: paths go
// as typed, resolve in its agent workspace, and a note on stderr says so.
func (r *runtime) resolvePaths(a *tools.Action, params map[string]any, relay bool, t gatewayTarget) error {
	var rel []string
	for _, name := range a.PathParams {
		if s, ok := params[name].(string); ok && isRelativePath(s) {
			rel = append(rel, name)
		}
	}
	if len(rel) == 0 {
		return nil
	}
	if relay && !isLoopbackURL(t.url) {
		for _, name := range rel {
			fmt.Fprintf(r.stderr, "openclaw: note: %s %q is relative and the gateway at %s is on another host: it resolves in that gateway's agent workspace\n",
				name, params[name], t.url)
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

// isLoopbackURL reports a gateway URL on this host.
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// relayTool runs an agent tool action on the gateway through tools.invoke
// and returns its output bytes unchanged, so a relayed result prints
// byte-identical to a local one. args is already encoded (with "action"
// for a multi-action tool); the request is assembled around it.
func (r *runtime) relayTool(ctx context.Context, t gatewayTarget, a *tools.Action, args json.RawMessage) (json.RawMessage, error) {
	name, _ := json.Marshal(a.Tool)
	req := make(json.RawMessage, 0, len(args)+len(name)+20)
	req = append(append(append(append(append(req, `{"name":`...), name...), `,"args":`...), args...), '}')
	// tools.invoke needs write; the tool itself may need more (gateway config writes need admin).
	scopes := []string{protocol.ScopeWrite}
	if s := a.RequiredScope(); s != protocol.ScopeWrite {
		scopes = append(scopes, s)
	}
	payload, err := r.dialCall(ctx, t, "tools.invoke", scopes, req)
	if err != nil {
		return nil, err
	}
	res := gjson.ParseBytes(payload)
	if !res.Get("ok").Bool() {
		e := res.Get("error")
		te := &failure.Error{Code: e.Get("code").String(), Message: e.Get("message").String()}
		if te.Code == "" {
			te.Code = failure.CodeFailed
		}
		if te.Message == "" {
			te.Message = "tool failed on the gateway"
		}
		if d := e.Get("details"); d.Exists() && d.Type != gjson.Null {
			te.Details = json.RawMessage(d.Raw)
		}
		return nil, te
	}
	return json.RawMessage(res.Get("output").Raw), nil
}

// dialCall sends one request to the gateway on a fresh connection.
func (r *runtime) dialCall(ctx context.Context, t gatewayTarget, method string, scopes []string, params json.RawMessage) (json.RawMessage, error) {
	conn, err := client.Dial(ctx, client.Options{
		URL: t.url, Token: t.token, Password: t.password,
		ClientID: "cli", ClientMode: "cli", Version: Version,
		Scopes:  scopes,
		OnEvent: r.sink.gatewayEvent, // tool.progress / tool.event for this call (sink.go)
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// With expectFinal a long-running method's "accepted" answer is skipped
	// for its final result on the same id.
	res, err := conn.CallWith(ctx, method, params, client.CallOptions{ExpectFinal: r.expectFinal})
	_ = conn.SyncEvents(ctx) // print the call's progress and events before its result
	return res, err
}

// gatewayTarget is where relayed calls go and how they authenticate.
type gatewayTarget struct {
	url, token, password string
	// explicit is true when the user named a gateway (flag, env, or remote mode).
	explicit bool
}

// target resolves the gateway URL and credentials: --url/OPENCLAW_GATEWAY_URL,
// then gateway.remote.url in remote mode, then the local gateway's port.
// Config credentials apply only to the gateway the config describes.
func (r *runtime) target(c *cli.Context) (gatewayTarget, error) {
	t := gatewayTarget{url: c.String("url"), token: c.String("token"), password: c.String("password")}
	if t.url != "" {
		t.explicit = true
		return t, nil
	}
	cfg, err := r.Config(c)
	if err != nil {
		return t, err
	}
	if cfg.String("gateway.mode", "") == "remote" {
		if u := cfg.String("gateway.remote.url", ""); u != "" {
			t.url, t.explicit = u, true
			if t.token == "" {
				t.token = cfg.String("gateway.remote.token", "")
			}
			if t.password == "" {
				t.password = cfg.String("gateway.remote.password", "")
			}
			return t, nil
		}
	}
	paths, err := r.Paths(c)
	if err != nil {
		return t, err
	}
	t.url = "ws://127.0.0.1:" + strconv.Itoa(gateway.ResolvePort(0, paths, cfg, r.getenv))
	if t.token == "" {
		t.token = cfg.String("gateway.auth.token", "")
	}
	if t.password == "" {
		t.password = cfg.String("gateway.auth.password", "")
	}
	return t, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
