package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/web_search.json
var searchSchema string

const (
	docsURL              = "https://docs.openclaw.ai/tools/web"
	defaultMaxResults    = 5
	defaultSearchTimeout = 30
	searchBodyCap        = 4 << 20 // provider answers are small; never read more
)

func init() {
	tools.Register(&tools.Action{
		Tool:      "web_search",
		ReadOnly:  true,
		OpenWorld: true,
		Summary:   "Search the web (Brave, Perplexity, Gemini, Grok or Kimi)",
		Description: "Uses tools.web.search.provider, else the first provider with a key " +
			"(Brave, Gemini, Perplexity, Grok, Kimi; keys from config or BRAVE_API_KEY, " +
			"GEMINI_API_KEY, PERPLEXITY_API_KEY/OPENROUTER_API_KEY, XAI_API_KEY, " +
			"KIMI_API_KEY/MOONSHOT_API_KEY). Brave returns results; the others an answer " +
			"with citations. Set a key with `openclaw configure --section web`.",
		Examples: []string{
			`openclaw web search "go 1.26 release notes"`,
			`openclaw web search "wetter berlin" --count 3 --country DE --search-lang de`,
		},
		Schema: searchSchema,
		Args:   []string{"query"},
		Scope:  "operator.read",
		Where:  tools.Local,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p searchParams) (any, error) {
			payload, err := runSearch(ctx, env, p)
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(payload)
		}),
		Render: renderSearch,
	})
}

type searchParams struct {
	Query      string   `json:"query"`
	Count      *float64 `json:"count"`
	Country    string   `json:"country"`
	SearchLang string   `json:"search_lang"`
	UILang     string   `json:"ui_lang"`
	Freshness  string   `json:"freshness"`
}

// searchCall is one provider request in the making.
type searchCall struct {
	ctx    context.Context
	p      searchParams
	count  int
	key    string
	base   string
	model  string
	cfg    map[string]any // tools.web.search.<provider>
	policy netguard.Policy
	prov   *Provider
}

func runSearch(ctx context.Context, env *tools.Env, p searchParams) (map[string]any, error) {
	start := time.Now()
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	if !cfg.Bool("tools.web.search.enabled", true) {
		return nil, tools.Errorf(tools.CodeDenied, "web_search is disabled (tools.web.search.enabled is false)")
	}
	if strings.TrimSpace(p.Query) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "query required")
	}
	prov, err := selectProvider(cfg)
	if err != nil {
		return nil, err
	}
	count := cfg.Int("tools.web.search.maxResults", defaultMaxResults)
	if p.Count != nil {
		count = int(*p.Count)
	}
	count = min(max(count, 1), 10)
	key, _ := prov.Key(cfg)
	if key == "" {
		return nil, missingKey(prov)
	}
	sc := &searchCall{p: p, count: count, key: key, prov: prov, base: prov.DefaultBase}
	_ = cfg.Decode("tools.web.search."+prov.ID, &sc.cfg)
	if b, _ := sc.cfg["baseUrl"].(string); b != "" {
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, tools.Errorf(tools.CodeInvalidParams, "%s: %s must be an http(s) URL", prov.Label, prov.BaseURLPath())
		}
		sc.base = strings.TrimRight(b, "/")
		// The operator chose this host: it may be a private proxy.
		sc.policy.AllowedHostnames = []string{u.Hostname()}
	} else if prov.ID == "perplexity" {
		sc.base = perplexityBase(key)
	}
	sc.model, _ = sc.cfg["model"].(string)

	cacheKey := strings.ToLower(strings.Join([]string{"search", prov.ID, sc.base, sc.model, p.Query, fmt.Sprint(count),
		p.Country, p.SearchLang, p.UILang, p.Freshness}, "\x00"))
	cache := cacheOf(env)
	if hit, ok := cache.get(cacheKey); ok {
		return hit, nil
	}
	timeout := max(cfg.Int("tools.web.search.timeoutSeconds", defaultSearchTimeout), 1)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
	defer cancel()
	sc.ctx = ctx
	payload, err := prov.run(sc)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, tools.Errorf(tools.CodeTimeout, "%s timed out after %ds (tools.web.search.timeoutSeconds)", prov.Label, timeout)
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, tools.Errorf(tools.CodeInterrupted, "web search interrupted")
		}
		return nil, err
	}
	payload["query"] = p.Query
	payload["provider"] = prov.ID
	payload["tookMs"] = time.Since(start).Milliseconds()
	payload["externalContent"] = map[string]any{"untrusted": true, "source": "web_search", "provider": prov.ID, "wrapped": true}
	ttl := 15.0
	if v, ok := cfg.Get("tools.web.search.cacheTtlMinutes"); ok {
		if f, ok := v.(float64); ok {
			ttl = f
		}
	}
	cache.put(cacheKey, payload, ttlMinutes(ttl))
	return payload, nil
}

// payloadError is an error whose details carry the original's error payload.
func payloadError(code, kind, msg string) error {
	return tools.Errorf(code, "%s", msg).WithDetails(map[string]any{"error": kind, "message": msg, "docs": docsURL})
}

func missingKey(p *Provider) error {
	msg := fmt.Sprintf("web_search (%s) needs an API key. Run `openclaw configure --section web` to store it, or set %s in the gateway environment.",
		p.Label, strings.Join(p.EnvKeys, " or "))
	return payloadError(tools.CodeFailed, "missing_"+p.ID+"_api_key", msg)
}

func errUnknownProvider(id string) error {
	ids := make([]string, len(providers))
	for i, p := range providers {
		ids[i] = p.ID
	}
	return tools.Errorf(tools.CodeInvalidParams, "unknown web search provider %q in tools.web.search.provider (one of: %s)", id, strings.Join(ids, ", "))
}

// do sends one request to the provider through the guard and decodes a
// JSON answer into out. Errors name the provider; keys never appear.
func (sc *searchCall) do(method, endpoint string, header http.Header, body any, out any) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("%s: bad endpoint: %w", sc.prov.Label, err)
	}
	if err := sc.policy.CheckHost(u.Hostname()); err != nil {
		return err
	}
	addrs, err := sc.policy.Resolve(sc.ctx, u.Hostname())
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(sc.ctx, method, endpoint, rd)
	if err != nil {
		return err
	}
	req.Header = header
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := netguard.Client(addrs)
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if sc.ctx.Err() != nil {
			return sc.ctx.Err()
		}
		return tools.Errorf(tools.CodeUnreachable, "%s API unreachable (%s): %v", sc.prov.Label, sc.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, searchBodyCap))
	if err != nil {
		return fmt.Errorf("%s API: %w", sc.prov.Label, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		detail := redact(strings.TrimSpace(string(raw[:min(len(raw), 500)])), sc.key)
		code := tools.CodeFailed
		hint := ""
		if resp.StatusCode == 401 || resp.StatusCode == 403 {
			code = tools.CodeAuth
			hint = fmt.Sprintf(" (check the key in %s or %s)", sc.prov.KeyPath, strings.Join(sc.prov.EnvKeys, "/"))
		}
		return tools.Errorf(code, "%s API error (%d): %s%s", sc.prov.Label, resp.StatusCode, detail, hint)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return tools.Errorf(tools.CodeFailed, "%s API: invalid JSON answer: %v", sc.prov.Label, err)
	}
	return nil
}

var bearerish = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(bearer\s+|api[_-]?key["=:\s]+)[A-Za-z0-9._\-]{8,}`)
}) // built on first use, not in every process's init

// redact removes the key (and anything that looks like one) from text.
func redact(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return bearerish().ReplaceAllString(s, "${1}[redacted]")
}

func wrapSnippet(s string) string {
	if s == "" {
		return ""
	}
	return wrap(s, "Web Search", false)
}
