// Package mcpclient connects to the MCP servers saved under mcp.servers in
// openclaw.json (stdio, streamable HTTP, SSE) with the official go-sdk
// client: one supervised connection per server, restarted with backoff when
// it dies, a timeout on every call, and the servers' tools projected under
// provider-safe names (<server>__<tool>) as the original does. The CLI's
// `openclaw mcp` registry verbs and the gateway's mcpServers service
// (tools/mcpservers) build on it.
package mcpclient

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/policy"
)

// Transports.
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// Default timeouts, as the original's (mcp-transport-config).
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultRequestTimeout = 60 * time.Second
)

// Server is one saved server definition (mcp.servers.<name>) resolved for
// launching. The raw definition stays in the config; Server is what runs.
type Server struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Transport is stdio, streamable-http or sse.
	Transport string `json:"transport"`

	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// DroppedEnv are env keys refused for stdio start-up safety.
	DroppedEnv []string `json:"droppedEnv,omitempty"`

	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	SSLVerify *bool             `json:"sslVerify,omitempty"`
	// ClientCert and ClientKey are mutual TLS file paths.
	ClientCert string `json:"clientCert,omitempty"`
	ClientKey  string `json:"clientKey,omitempty"`
	OAuth      bool   `json:"oauth,omitempty"`

	ConnectTimeout time.Duration `json:"-"`
	RequestTimeout time.Duration `json:"-"`
	Parallel       bool          `json:"supportsParallelToolCalls,omitempty"`
	Include        []string      `json:"include,omitempty"`
	Exclude        []string      `json:"exclude,omitempty"`
}

// Invalid is a saved definition that cannot run, with the reason.
type Invalid struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Raw returns mcp.servers as saved (each value an object; anything else is
// dropped, as the original's normalizer does), or an empty map.
func Raw(cfg *config.Config) map[string]map[string]any {
	out := map[string]map[string]any{}
	if cfg == nil {
		return out
	}
	v, ok := cfg.Get("mcp.servers")
	if !ok {
		return out
	}
	m, ok := v.(map[string]any)
	if !ok {
		return out
	}
	for name, s := range m {
		if obj, ok := s.(map[string]any); ok {
			out[name] = obj
		}
	}
	return out
}

// Names returns the saved server names, sorted.
func Names(raw map[string]map[string]any) []string {
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve turns one saved definition into a launchable Server, or says why
// it cannot run. A stdio command wins over a url, as in the original.
func Resolve(name string, raw map[string]any) (Server, error) {
	s := Server{Name: name, Enabled: true}
	if b, ok := raw["enabled"].(bool); ok && !b {
		s.Enabled = false
	}
	s.ConnectTimeout = millis(raw["connectionTimeoutMs"], DefaultConnectTimeout)
	s.RequestTimeout = millis(raw["requestTimeoutMs"], DefaultRequestTimeout)
	s.Parallel, _ = raw["supportsParallelToolCalls"].(bool)
	if f, ok := raw["toolFilter"].(map[string]any); ok {
		s.Include, s.Exclude = stringList(f["include"]), stringList(f["exclude"])
	}
	transport := strings.ToLower(strings.TrimSpace(str(raw["transport"])))
	if transport == "" {
		switch strings.ToLower(strings.TrimSpace(str(raw["type"]))) {
		case "http", "streamable-http":
			transport = TransportStreamable
		case "sse":
			transport = TransportSSE
		}
	}
	if cmd := str(raw["command"]); strings.TrimSpace(cmd) != "" {
		s.Transport, s.Command = TransportStdio, cmd
		s.Args = stringList(raw["args"])
		s.Cwd = str(raw["cwd"])
		if strings.TrimSpace(s.Cwd) == "" {
			s.Cwd = str(raw["workingDirectory"])
		}
		env, dropped := stringMap(raw["env"], policy.EnvKeyBlocked)
		s.Env, s.DroppedEnv = env, dropped
		return s, nil
	}
	switch transport {
	case "", TransportSSE, TransportStreamable:
	case TransportStdio:
		return s, fmt.Errorf("transport stdio needs a non-empty command")
	default:
		return s, fmt.Errorf("transport %q is not supported (use streamable-http, sse, or a command for stdio)", transport)
	}
	rawURL := strings.TrimSpace(str(raw["url"]))
	if rawURL == "" {
		return s, fmt.Errorf("it has neither a command (stdio) nor a url (HTTP)")
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return s, fmt.Errorf("its url is not a valid URL: %s", RedactURL(rawURL))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return s, fmt.Errorf("only http and https URLs are supported, got %s:", u.Scheme)
	}
	if transport == "" {
		transport = TransportSSE // the original's default for a url
	}
	s.Transport, s.URL = transport, rawURL
	s.Headers, _ = stringMap(raw["headers"], nil)
	if b, ok := raw["sslVerify"].(bool); ok {
		s.SSLVerify = &b
	}
	s.ClientCert, s.ClientKey = strings.TrimSpace(str(raw["clientCert"])), strings.TrimSpace(str(raw["clientKey"]))
	if str(raw["auth"]) == "oauth" {
		s.OAuth = true
	}
	return s, nil
}

// Launch describes how the server starts, secrets redacted: "cmd args
// (cwd=dir)" or "streamable-http https://host/path".
func (s Server) Launch() string {
	if s.Transport == TransportStdio {
		out := s.Command
		if args := RedactArgs(s.Args); len(args) > 0 {
			out += " " + strings.Join(args, " ")
		}
		if s.Cwd != "" {
			out += " (cwd=" + s.Cwd + ")"
		}
		return out
	}
	return s.Transport + " " + RedactURL(s.URL)
}

// Allows reports whether the server's toolFilter exposes tool: included
// (or no include list) and not excluded.
func (s Server) Allows(tool string) bool {
	if len(s.Include) > 0 {
		hit := false
		for _, p := range s.Include {
			if globMatch(p, tool) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	for _, p := range s.Exclude {
		if globMatch(p, tool) {
			return false
		}
	}
	return true
}

// globMatch is the toolFilter pattern: exact text, or * matching any run.
func globMatch(pattern, s string) bool {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return false
	}
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	rest := s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return strings.HasSuffix(rest, last)
}

var sensitiveFlag = []string{"token", "key", "secret", "password", "auth", "bearer", "credential"}

// RedactArgs hides the values of credential-looking arguments
// (--api-key=x, --token x, Bearer x) for listings.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext:
			out[i], hideNext = "***", false
			continue
		case strings.EqualFold(a, "bearer"):
			out[i], hideNext = a, true
			continue
		}
		out[i] = a
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(a, "=")
		if !sensitiveName(name) {
			continue
		}
		if hasValue {
			out[i] = name + "=***"
		} else {
			hideNext = true
		}
	}
	return out
}

func sensitiveName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	for _, s := range sensitiveFlag {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// RedactURL hides userinfo and credential-looking query values.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid url>"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if sensitiveName(k) {
			q.Set(k, "***")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func stringList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// stringMap coerces an object of strings, numbers and booleans to strings;
// keys drop refuses are left out and returned.
func stringMap(v any, drop func(string) bool) (map[string]string, []string) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	out := map[string]string{}
	var dropped []string
	for k, x := range m {
		if drop != nil && drop(k) {
			dropped = append(dropped, k)
			continue
		}
		switch t := x.(type) {
		case string:
			out[k] = t
		case bool:
			out[k] = strconv.FormatBool(t)
		case float64:
			out[k] = strconv.FormatFloat(t, 'f', -1, 64)
		case int:
			out[k] = strconv.Itoa(t)
		case int64:
			out[k] = strconv.FormatInt(t, 10)
		default:
			if n, ok := x.(interface{ String() string }); ok { // json.Number
				out[k] = n.String()
			}
		}
	}
	sort.Strings(dropped)
	if len(out) == 0 {
		out = nil
	}
	return out, dropped
}

// millis reads a positive millisecond count, else def.
func millis(v any, def time.Duration) time.Duration {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case int:
		f = float64(t)
	case int64:
		f = float64(t)
	case interface{ Float64() (float64, error) }:
		f, _ = t.Float64()
	}
	if f <= 0 || f > float64(24*time.Hour/time.Millisecond) {
		return def
	}
	return time.Duration(f * float64(time.Millisecond))
}
