package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// run executes an action in this process or relays it to a gateway, per
// DESIGN.md "Where an action runs".
func (r *runtime) run(c *cli.Context, a *tools.Action, params json.RawMessage) (json.RawMessage, error) {
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
		return a.Invoke(ctx, env, params)
	}
	if a.Tool == "" {
		return r.dialCall(ctx, target, a.Method, []string{orAdmin(a.Scope)}, params)
	}
	return r.relayTool(ctx, target, a, params)
}

// relayTool runs an agent tool action on the gateway through tools.invoke
// and returns its output bytes unchanged, so a relayed result prints
// byte-identical to a local one.
func (r *runtime) relayTool(ctx context.Context, t gatewayTarget, a *tools.Action, params json.RawMessage) (json.RawMessage, error) {
	args := params
	if a.Verb != "" {
		var m map[string]any
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, fmt.Errorf("relay %s: %w", a.ID(), err)
		}
		m["action"] = a.Verb
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("relay %s: %w", a.ID(), err)
		}
		args = b
	}
	req := map[string]any{"name": a.Tool, "args": json.RawMessage(args)}
	// tools.invoke needs write; the tool itself may need more (gateway config writes need admin).
	scopes := []string{protocol.ScopeWrite}
	if a.Scope != "" && a.Scope != protocol.ScopeWrite {
		scopes = append(scopes, a.Scope)
	}
	payload, err := r.dialCall(ctx, t, "tools.invoke", scopes, mustJSON(req))
	if err != nil {
		return nil, err
	}
	res := gjson.ParseBytes(payload)
	if !res.Get("ok").Bool() {
		e := res.Get("error")
		te := &tools.Error{Code: e.Get("code").String(), Message: e.Get("message").String()}
		if te.Code == "" {
			te.Code = tools.CodeFailed
		}
		if te.Message == "" {
			te.Message = "tool failed on the gateway"
		}
		if d := e.Get("details"); d.Exists() {
			te.Details = json.RawMessage(d.Raw)
		}
		return nil, te
	}
	return json.RawMessage(res.Get("output").Raw), nil
}

// orAdmin: methods without a declared scope need admin, as in the original.
func orAdmin(scope string) string {
	if scope == "" {
		return protocol.ScopeAdmin
	}
	return scope
}

// dialCall sends one request to the gateway on a fresh connection.
func (r *runtime) dialCall(ctx context.Context, t gatewayTarget, method string, scopes []string, params json.RawMessage) (json.RawMessage, error) {
	conn, err := client.Dial(ctx, client.Options{
		URL: t.url, Token: t.token, Password: t.password,
		ClientID: "cli", ClientMode: "cli", Version: Version,
		Scopes: scopes,
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.Call(ctx, method, params)
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
