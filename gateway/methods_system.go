package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// registerMethod declares a gateway-native method: it runs inside the
// gateway (Where Gateway), has a wire name and no agent tool.
func registerMethod(a *tools.Action) {
	a.Where = tools.Gateway
	tools.Register(a)
}

func init() {
	registerMethod(&tools.Action{
		Method:  "health",
		Summary: "Show the gateway's health snapshot",
		// Open to unknown params, as the original's health is.
		Schema: `{"type":"object","properties":{"probe":{"type":"boolean","description":"Force a fresh probe"}}}`,
		Scope:  protocol.ScopeRead, // what the CLI asks for; the method is Open
		Open:   true,               // every authenticated connection, any role (§4.5)
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			Probe bool `json:"probe"`
		}) (any, error) {
			s, err := serverFrom(env, "health")
			if err != nil {
				return nil, err
			}
			return s.healthSnapshot(p.Probe), nil
		}),
		Render: renderHealth,
	})
	registerMethod(&tools.Action{
		Method:  "status",
		Summary: "Show the gateway's status summary",
		Schema:  `{"type":"object","properties":{"includeChannelSummary":{"type":"boolean"},"includeCliProjection":{"type":"boolean"}}}`,
		Scope:   protocol.ScopeRead,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			IncludeCliProjection bool `json:"includeCliProjection"`
		}) (any, error) {
			s, err := serverFrom(env, "status")
			if err != nil {
				return nil, err
			}
			out := s.status(protocol.ScopeSatisfied(env.Subject.Scopes, protocol.ScopeAdmin))
			// The session figures come from the sessions family, through
			// the one door; without it the zero summary stays.
			ids, _ := json.Marshal(map[string]any{"agentIds": agentIDs(s.Config()),
				"sensitive": protocol.ScopeSatisfied(env.Subject.Scopes, protocol.ScopeAdmin)})
			if sum, err := tools.Invoke(ctx, env, tools.Call{Method: "sessions.summary", Args: ids}); err == nil {
				out["sessions"] = json.RawMessage(sum)
			}
			// Heartbeat settings and queued events: the heartbeat family's.
			if hb, err := tools.Invoke(ctx, env, tools.Call{Method: "heartbeat.summary", Args: ids}); err == nil {
				sum := out["heartbeat"].(map[string]any)
				sum["enabled"] = gjson.GetBytes(hb, "enabled").Bool()
				sum["agents"] = json.RawMessage(gjson.GetBytes(hb, "agents").Raw)
				out["queuedSystemEvents"] = json.RawMessage(gjson.GetBytes(hb, "queuedSystemEvents").Raw)
			}
			if p.IncludeCliProjection {
				out["cliProjection"] = cliProjection(s.Config(), agentIDs(s.Config()))
			}
			return out, nil
		}),
		Render: renderStatus,
	})
	registerMethod(&tools.Action{
		Method:  "system-presence",
		Summary: "List connected clients and nodes",
		Schema:  `{"type":"object"}`, // unknown params accepted, as the original
		Scope:   protocol.ScopeRead,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := serverFrom(env, "system-presence")
			if err != nil {
				return nil, err
			}
			return s.presence(), nil
		},
		Render: renderPresence,
	})
	// last-heartbeat and set-heartbeats are the heartbeat family's
	// (tools/heartbeat).
}

// healthSnapshot is the minimal valid HealthSnapshot (§5.2) plus the
// gateway's own liveness facts.
func (s *Server) healthSnapshot(probe bool) map[string]any {
	start := time.Now()
	cfg := s.Config()
	reload := "active"
	if s.opts.ConfigPollInterval < 0 {
		reload = "disabled"
	}
	// No session store exists yet (sessions arrive with their issue), so
	// the path is empty rather than naming a file that is not there.
	sessionsPath := ""
	def := defaultAgentID(cfg)
	var agents []map[string]any
	for _, id := range agentIDs(cfg) {
		agents = append(agents, map[string]any{
			"agentId": id, "isDefault": id == def,
			"heartbeat": map[string]any{"enabled": false, "every": "disabled", "everyMs": nil},
			"sessions":  agentSessions(),
		})
	}
	return map[string]any{
		"ok":               true,
		"ts":               nowMs(),
		"durationMs":       time.Since(start).Milliseconds(),
		"configReload":     map[string]any{"hotReloadStatus": reload},
		"channels":         map[string]any{},
		"channelOrder":     []string{},
		"channelLabels":    map[string]any{},
		"heartbeatSeconds": 0,
		"defaultAgentId":   def,
		"agents":           agents,
		"sessions":         map[string]any{"path": sessionsPath, "count": 0, "recent": []any{}},
	}
}

func (s *Server) healthJSON() json.RawMessage {
	b, err := json.Marshal(s.healthSnapshot(false))
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// status is the summary for `openclaw status` / `gateway status`: the
// original's fields (sessions, heartbeat, tasks, runtimeVersion, …; see
// status_shape.go) and our own (protocol, connections, gateway.authMode);
// paths only for admins.
func (s *Server) status(admin bool) map[string]any {
	cfg := s.Config()
	ids := agentIDs(cfg)
	jobs := s.jobs.List()
	// Counted by authed, not by the ready set: hello-ok goes out just
	// before the connection joins that set, so a client that has read its
	// hello-ok (and told another client so) must not still count as
	// pending. sess is written before authed is stored.
	s.mu.Lock()
	total := len(s.conns)
	var ops, nodes int
	for c := range s.conns {
		if !c.authed.Load() {
			continue
		}
		if c.sess.role == protocol.RoleNode {
			nodes++
		} else {
			ops++
		}
	}
	s.mu.Unlock()
	out := map[string]any{
		"ok":       true,
		"ts":       nowMs(),
		"version":  s.opts.Version,
		"protocol": protocol.Version,
		"pid":      os.Getpid(),
		"bootId":   s.bootID,
		"uptimeMs": s.uptimeMs(),
		"gateway":  map[string]any{"url": "ws://" + s.Addr(), "bind": s.host, "authMode": s.auth.Load().mode},
		"heartbeat": map[string]any{
			"enabled": s.heartbeats.Load(), "defaultAgentId": defaultAgentID(cfg), "agents": heartbeatAgents(ids),
		},
		"runtimeVersion":     s.opts.Version,
		"sessions":           sessionsSummary(cfg, ids),
		"tasks":              tasksSummary(jobs),
		"taskAudit":          taskAudit(jobs),
		"channelSummary":     []any{},
		"queuedSystemEvents": []any{},
		"connections": map[string]any{
			"total": total, "operators": ops, "nodes": nodes, "pending": total - ops - nodes,
		},
		"runtime": map[string]any{"go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH, "goroutines": runtime.NumGoroutine()},
	}
	if admin {
		out["configPath"] = s.paths.ConfigPath
		out["stateDir"] = s.paths.StateDir
	}
	return out
}

// defaultAgentID is the agent a call is for when it names none.
func defaultAgentID(cfg *config.Config) string { return tools.DefaultAgentID(cfg) }

func renderHealth(w io.Writer, r gjson.Result) error {
	state := "not ok"
	if r.Get("ok").Bool() {
		state = "ok"
	}
	_, err := fmt.Fprintf(w, "Gateway health: %s (default agent %s, config reload %s)\n", state,
		r.Get("defaultAgentId").String(), r.Get("configReload.hotReloadStatus").String())
	if err != nil {
		return err
	}
	for _, id := range r.Get("channelOrder").Array() {
		label := r.Get("channelLabels." + gjson.Escape(id.String())).String()
		if label == "" {
			label = id.String()
		}
		if _, err := fmt.Fprintf(w, "  %s: %s\n", label, r.Get("channels."+gjson.Escape(id.String())).Raw); err != nil {
			return err
		}
	}
	return nil
}

func renderStatus(w io.Writer, r gjson.Result) error {
	_, err := fmt.Fprintf(w, "Gateway %s at %s (protocol %d, auth %s)\nUptime: %s\nConnections: %d operator(s), %d node(s)\n",
		r.Get("version").String(), r.Get("gateway.url").String(), r.Get("protocol").Int(), r.Get("gateway.authMode").String(),
		(time.Duration(r.Get("uptimeMs").Int()) * time.Millisecond).Round(time.Second),
		r.Get("connections.operators").Int(), r.Get("connections.nodes").Int())
	return err
}

func renderPresence(w io.Writer, r gjson.Result) error {
	for _, e := range r.Array() {
		text := e.Get("text").String()
		if text == "" {
			text = e.Get("host").String() + " (" + e.Get("mode").String() + ")"
		}
		if _, err := fmt.Fprintln(w, text); err != nil {
			return err
		}
	}
	return nil
}
