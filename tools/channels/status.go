// Package channels declares the message channel methods: channels.status
// reports each configured channel account of channels/ and, with probe,
// checks its credentials against the platform (Telegram getMe, Discord
// users/@me, Slack auth.test).
package channels

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

var labels = map[string]string{"telegram": "Telegram", "discord": "Discord", "slack": "Slack"}

type statusParams struct {
	Probe     bool `json:"probe"`
	TimeoutMs int  `json:"timeoutMs"`
}

func init() {
	tools.Register(&tools.Action{
		Where:    tools.Either,
		Method:   "channels.status",
		Command:  []string{"channels", "status"},
		Summary:  "Show each configured message channel account (with --probe, check its token against the platform)",
		Examples: []string{"openclaw channels status", "openclaw channels status --probe --json"},
		Schema:   `{"type":"object","properties":{"probe":{"type":"boolean","description":"Check each account's credentials (Telegram getMe, Discord users/@me, Slack auth.test)"},"timeoutMs":{"type":"integer","minimum":0,"description":"Probe timeout per account (default 10000)"}},"additionalProperties":false}`,
		Scope:    protocol.ScopeRead,
		Run:      tools.Typed(status),
		Render:   render,
	})
}

func status(ctx context.Context, env *tools.Env, p statusParams) (any, error) {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	timeout := 10 * time.Second
	if p.TimeoutMs > 0 {
		timeout = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	order := channels.Configured(cfg)
	// Inside the gateway, the receiving service says what runs.
	svc, _ := Key.From(env, "channels status")
	chLabels := map[string]any{}
	chans := map[string]any{}
	accounts := map[string]any{}
	defaults := map[string]any{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range order {
		chLabels[id] = labels[id]
		defaults[id] = channels.DefaultAccountID(cfg, id)
		ids := channels.AccountIDs(cfg, id)
		snaps := make([]map[string]any, len(ids))
		anyConfigured, anyRunning := false, false
		for i, acctID := range ids {
			snap := map[string]any{"accountId": acctID, "enabled": true, "configured": false, "running": false}
			snaps[i] = snap
			acct, err := channels.Resolve(cfg, id, acctID)
			if err != nil {
				snap["lastError"] = err.Error()
				continue
			}
			anyConfigured = true
			snap["configured"], snap["tokenSource"], snap["apiBaseUrl"] = true, acct.TokenSource, acct.APIBase
			snap["enabled"], snap["dmPolicy"] = acct.Enabled, acct.DMPolicy
			if svc != nil {
				if st, ok := svc.snapshot(id, acctID); ok {
					snap["running"], snap["connected"] = st.Running, st.Connected
					for k, v := range map[string]int64{"lastStartAt": st.LastStartAt, "lastInboundAt": st.LastInboundAt, "lastOutboundAt": st.LastOutboundAt} {
						if v > 0 {
							snap[k] = v
						}
					}
					if st.LastError != "" {
						snap["lastError"] = st.LastError
					}
					if st.Running {
						anyRunning = true
					}
				}
			}
			if !p.Probe {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				pctx, cancel := context.WithTimeout(ctx, timeout)
				defer cancel()
				probe := map[string]any{}
				a, err := channels.Open(acct)
				if err == nil {
					probe, err = a.Probe(pctx)
				}
				mu.Lock()
				defer mu.Unlock()
				snap["lastProbeAt"] = time.Now().UnixMilli()
				if err != nil {
					snap["probe"] = map[string]any{"ok": false, "error": err.Error()}
					snap["lastError"] = err.Error()
					return
				}
				snap["probe"] = probe
			}()
		}
		accounts[id] = snaps
		chans[id] = map[string]any{"configured": anyConfigured, "running": anyRunning}
	}
	wg.Wait()
	if order == nil {
		order = []string{}
	}
	return map[string]any{"ts": time.Now().UnixMilli(), "channelOrder": order, "channelLabels": chLabels,
		"channels": chans, "channelAccounts": accounts, "channelDefaultAccountId": defaults}, nil
}

func render(w io.Writer, r gjson.Result) error {
	if len(r.Get("channelOrder").Array()) == 0 {
		_, err := fmt.Fprintln(w, "No channels configured (set channels.telegram.botToken, channels.discord.token or channels.slack.botToken).")
		return err
	}
	for _, c := range r.Get("channelOrder").Array() {
		for _, a := range r.Get("channelAccounts." + gjson.Escape(c.String())).Array() {
			line := fmt.Sprintf("%s/%s: ", c.String(), a.Get("accountId").String())
			switch {
			case !a.Get("configured").Bool():
				line += "not configured: " + a.Get("lastError").String()
			case a.Get("probe.ok").Exists() && !a.Get("probe.ok").Bool():
				line += "probe failed: " + a.Get("probe.error").String()
			case a.Get("probe.ok").Bool():
				line += "ok, bot " + firstOf(a.Get("probe.bot.username").String(), a.Get("probe.bot.id").String())
			case a.Get("running").Bool():
				line += "running"
				if a.Get("connected").Bool() {
					line += ", connected"
				} else {
					line += ", not connected"
				}
				if t := a.Get("lastInboundAt").Int(); t > 0 {
					line += ", last inbound " + time.UnixMilli(t).UTC().Format(time.RFC3339)
				}
				if e := a.Get("lastError").String(); e != "" {
					line += ", last error: " + e
				}
			default:
				line += "configured (token from " + a.Get("tokenSource").String() + ")"
			}
			if _, err := fmt.Fprintln(w, strings.TrimSpace(line)); err != nil {
				return err
			}
		}
	}
	return nil
}

func firstOf(a, b string) string {
	if a != "" {
		return "@" + a
	}
	return b
}
