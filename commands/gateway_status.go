package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

func (r *runtime) gatewayStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "probe the gateway: reachable, version, auth, health, presence",
		Description: "Connects as a probe and asks health, status and system-presence in parallel.\n\n" +
			"EXAMPLES:\n   openclaw gateway status\n   openclaw gateway status --json --url ws://10.0.0.5:18789 --token T",
		Flags:  append(outputFlags(), connFlags()...),
		Action: r.gatewayStatus,
	}
}

func (r *runtime) gatewayStatus(c *cli.Context) error {
	t, err := r.target(c)
	if err != nil {
		return err
	}
	d := c.Duration("timeout")
	if d <= 0 {
		d = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(c.Context, d)
	defer cancel()
	start := time.Now()
	conn, err := client.Dial(ctx, client.Options{
		URL: t.URL, Token: t.Token, Password: t.Password,
		ClientID: "cli", ClientMode: "cli", Version: Version,
		Scopes: []string{protocol.ScopeRead},
	})
	if err != nil {
		return err
	}
	defer conn.Close()
	connectMs := time.Since(start).Milliseconds()
	hello := conn.Hello()
	out := map[string]any{
		"url": t.URL, "reachable": true, "connectMs": connectMs,
		"protocol": hello.Protocol, "server": hello.Server, "auth": hello.Auth,
		"methods": len(hello.Features.Methods),
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for key, method := range map[string]string{"health": "health", "status": "status", "presence": "system-presence"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := conn.Call(ctx, method, nil)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out[key] = map[string]string{"error": err.Error()}
				return
			}
			out[key] = json.RawMessage(res)
		}()
	}
	wg.Wait()
	return r.emit(c, r.renderGatewayStatus, mustJSON(out))
}

func (r *runtime) renderGatewayStatus(w io.Writer, v gjson.Result) error {
	_, err := fmt.Fprintf(w, "Gateway %s: "+r.io.Palette(false).Status("reachable")+" in %d ms\n  server   %s (protocol %d, conn %s)\n  auth     %s as %s [%s]\n  methods  %d\n  clients  %d connected\n",
		v.Get("url").String(), v.Get("connectMs").Int(),
		serverVersion(v), v.Get("protocol").Int(), v.Get("server.connId").String(),
		v.Get("auth.method").String(), v.Get("auth.role").String(), joinStrings(v.Get("auth.scopes")),
		v.Get("methods").Int(), len(v.Get("presence").Array()))
	return err
}

// serverVersion is the compatible release and, when the gateway sends one,
// its own build ("2026.9.6, build 2026.9.6-go+abc").
func serverVersion(v gjson.Result) string {
	if b := v.Get("server.buildId").String(); b != "" && b != v.Get("server.version").String() {
		return v.Get("server.version").String() + ", build " + b
	}
	return v.Get("server.version").String()
}
