// Package web holds the web tools: web_fetch (a guarded HTTP GET with
// readable extraction) and web_search (Brave, Perplexity, Gemini, Grok,
// Kimi). Every outbound request goes through the SSRF guard (package
// netguard).
package web

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/web_fetch.json
var fetchSchema string

// Classic defaults (spec §6.2).
const (
	defaultMaxChars         = 50000
	defaultMaxResponseBytes = 2_000_000
	defaultMaxRedirects     = 3
	defaultFetchTimeout     = 30
	defaultCacheTTLMinutes  = 15
	defaultUserAgent        = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7_2) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36"
	errorBodyCap            = 64 * 1024
	errorDetailChars        = 4000
)

// slowAfter is when a fetch starts reporting progress (a TTY shows a line).
var slowAfter = 2 * time.Second

func init() {
	tools.Register(&tools.Action{
		Tool:      "web_fetch",
		ReadOnly:  true,
		OpenWorld: true,
		Summary:   "Fetch a URL and extract its readable content (Markdown or text)",
		Description: "Plain HTTP GET, no JavaScript. HTML goes through readability then " +
			"Markdown (tables stay tables); JSON is pretty-printed, other text passed " +
			"through. Private, loopback, link-local and metadata addresses are refused " +
			"unless tools.web.fetch.ssrfPolicy allows them. With Firecrawl configured " +
			"(tools.web.fetch.firecrawl.apiKey or FIRECRAWL_API_KEY), pages without readable " +
			"text, HTTP errors and network failures are retried through it. Results are " +
			"cached 15 minutes inside the gateway.",
		Examples: []string{
			"openclaw web fetch https://example.com",
			"openclaw web fetch https://example.com --extract-mode text --max-chars 2000",
		},
		Schema: fetchSchema,
		Args:   []string{"url"},
		Scope:  "operator.read",
		Where:  tools.Local,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p fetchParams) (any, error) {
			payload, err := runFetch(ctx, env, p)
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(payload)
		}),
		Render: renderFetch,
	})
}

type fetchParams struct {
	URL         string   `json:"url"`
	ExtractMode string   `json:"extractMode"`
	MaxChars    *float64 `json:"maxChars"`
}

// fetchConfig is tools.web.fetch with defaults applied.
type fetchConfig struct {
	Enabled          *bool           `json:"enabled"`
	MaxChars         int             `json:"maxChars"`
	MaxCharsCap      int             `json:"maxCharsCap"`
	MaxResponseBytes int             `json:"maxResponseBytes"`
	TimeoutSeconds   int             `json:"timeoutSeconds"`
	CacheTTLMinutes  float64         `json:"cacheTtlMinutes"`
	MaxRedirects     *int            `json:"maxRedirects"`
	Readability      *bool           `json:"readability"`
	UserAgent        string          `json:"userAgent"`
	SSRFPolicy       netguard.Policy `json:"ssrfPolicy"`
}

func loadFetchConfig(cfg *config.Config) fetchConfig {
	fc := fetchConfig{CacheTTLMinutes: -1}
	if cfg != nil {
		_ = cfg.Decode("tools.web.fetch", &fc)
	}
	if fc.MaxCharsCap <= 0 {
		fc.MaxCharsCap = defaultMaxChars
	}
	if fc.MaxChars <= 0 {
		fc.MaxChars = defaultMaxChars
	}
	if fc.MaxResponseBytes <= 0 {
		fc.MaxResponseBytes = defaultMaxResponseBytes
	}
	fc.MaxResponseBytes = min(max(fc.MaxResponseBytes, 32_000), 10_000_000)
	if fc.TimeoutSeconds <= 0 {
		fc.TimeoutSeconds = defaultFetchTimeout
	}
	if fc.CacheTTLMinutes < 0 {
		fc.CacheTTLMinutes = defaultCacheTTLMinutes
	}
	if fc.MaxRedirects == nil {
		n := defaultMaxRedirects
		fc.MaxRedirects = &n
	}
	if fc.UserAgent == "" {
		fc.UserAgent = defaultUserAgent
	}
	return fc
}

func runFetch(ctx context.Context, env *tools.Env, p fetchParams) (map[string]any, error) {
	start := time.Now()
	fc := loadFetchConfig(env.Config)
	if fc.Enabled != nil && !*fc.Enabled {
		return nil, tools.Errorf(tools.CodeDenied, "web_fetch is disabled (tools.web.fetch.enabled is false)")
	}
	if strings.TrimSpace(p.URL) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "url required")
	}
	if _, err := netguard.ParseHTTPURL(p.URL); err != nil {
		return nil, err
	}
	mode := "markdown"
	if p.ExtractMode == "text" {
		mode = "text"
	}
	maxChars := fc.MaxChars
	if p.MaxChars != nil {
		maxChars = int(*p.MaxChars)
	}
	maxChars = min(max(maxChars, 100), fc.MaxCharsCap)

	cache := cacheOf(env)
	key := fmt.Sprintf("fetch:%s:%s:%d", p.URL, mode, maxChars)
	if hit, ok := cache.get(key); ok {
		return hit, nil
	}

	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, time.Duration(fc.TimeoutSeconds)*time.Second)
	defer cancel()
	var slow atomic.Bool
	timer := time.AfterFunc(slowAfter, func() {
		slow.Store(true)
		env.Progress("Fetching "+p.URL+"…", 0, -1)
	})
	defer timer.Stop()

	header := http.Header{}
	header.Set("Accept", "text/markdown, text/html;q=0.9, */*;q=0.1")
	header.Set("Accept-Language", "en-US,en;q=0.9")
	header.Set("User-Agent", fc.UserAgent)
	fire := loadFirecrawl(env.Config)
	// viaFirecrawl is the fallback: it runs under the caller's context
	// (the fetch's own deadline may be what failed) with its own timeout.
	viaFirecrawl := func(cause error) (map[string]any, error) {
		if fire == nil {
			return nil, cause
		}
		page, err := fire.scrape(outer, p.URL)
		if err != nil {
			return nil, err
		}
		text := page.Markdown
		if mode == "text" {
			text = markdownToText(text)
		}
		if strings.TrimSpace(text) == "" {
			return nil, tools.Errorf(tools.CodeFailed, "Web fetch extraction failed: Readability and Firecrawl returned no content.")
		}
		final := page.SourceURL
		if final == "" {
			final = p.URL
		}
		status := page.Status
		if status == 0 {
			status = http.StatusOK
		}
		payload := buildPayload(p.URL, final, status, "text/markdown", mode, extracted{Text: text, Title: page.Title, Extractor: "firecrawl"},
			page.Warning, false, maxChars, start)
		cache.put(key, payload, ttlMinutes(fc.CacheTTLMinutes))
		return payload, nil
	}

	resp, final, err := netguard.Get(ctx, fc.SSRFPolicy, p.URL, netguard.Options{
		MaxRedirects: *fc.MaxRedirects, Header: header, What: "Web fetch", RedirectsKey: "tools.web.fetch.maxRedirects"})
	if err != nil {
		ferr := fetchError(ctx, err, fc.TimeoutSeconds)
		// A refusal by the guard is never retried elsewhere, nor is an
		// interrupted call.
		if ferr.Code == tools.CodeDenied || ferr.Code == tools.CodeInvalidParams || outer.Err() != nil {
			return nil, ferr
		}
		return viaFirecrawl(ferr)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		detail, _, _ := netguard.ReadCapped(ctx, resp.Body, errorBodyCap)
		text := string(detail)
		if strings.Contains(strings.ToLower(ct), "html") {
			if ex, err := extractHTML(detail, final, "text"); err == nil {
				text = ex.Text
			}
		}
		if r := []rune(text); len(r) > errorDetailChars {
			text = string(r[:errorDetailChars])
		}
		return viaFirecrawl(tools.Errorf(tools.CodeFailed, "Web fetch failed (%d): %s", resp.StatusCode, wrap(text, "Web Fetch", false)))
	}

	body, bodyTruncated, err := readCapped(ctx, env, resp.Body, fc.MaxResponseBytes, &slow)
	if err != nil {
		return nil, fetchError(ctx, err, fc.TimeoutSeconds)
	}
	body, _ = decodeBody(body, ct)
	if fc.Readability != nil && !*fc.Readability && isHTML(body, ct) {
		return viaFirecrawl(tools.Errorf(tools.CodeFailed, "Web fetch extraction failed: Readability disabled and Firecrawl unavailable."))
	}
	ex, err := extract(body, ct, final, mode)
	if errors.Is(err, errNoContent) {
		return viaFirecrawl(tools.Errorf(tools.CodeFailed, "%v", err))
	}
	if err != nil {
		return nil, tools.AsError(err)
	}
	warning := ""
	if bodyTruncated {
		warning = fmt.Sprintf("Response body truncated after %d bytes.", fc.MaxResponseBytes)
	}
	payload := buildPayload(p.URL, final.String(), resp.StatusCode, mediaType(ct), mode, ex, warning, bodyTruncated, maxChars, start)
	cache.put(key, payload, ttlMinutes(fc.CacheTTLMinutes))
	return payload, nil
}

// buildPayload is the result of spec §6.4: the text wrapped in the
// untrusted-content envelope within maxChars, title and warning wrapped
// without the notice.
func buildPayload(raw, final string, status int, ct, mode string, ex extracted, warning string, bodyTruncated bool, maxChars int, start time.Time) map[string]any {
	wrapped, truncated := wrapWithin(ex.Text, "Web Fetch", maxChars)
	payload := map[string]any{
		"url":             raw,
		"finalUrl":        final,
		"status":          status,
		"contentType":     ct,
		"extractMode":     mode,
		"extractor":       ex.Extractor,
		"externalContent": map[string]any{"untrusted": true, "source": "web_fetch", "wrapped": true},
		"truncated":       truncated || bodyTruncated,
		"length":          len([]rune(wrapped)),
		"rawLength":       len([]rune(ex.Text)),
		"wrappedLength":   len([]rune(wrapped)),
		"fetchedAt":       time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"tookMs":          time.Since(start).Milliseconds(),
		"text":            wrapped,
	}
	if ex.Title != "" {
		payload["title"] = wrap(ex.Title, "Web Fetch", false)
	}
	if warning != "" {
		payload["warning"] = wrap(warning, "Web Fetch", false)
	}
	return payload
}

// readCapped reads at most limit bytes (never more into memory), reporting
// progress once the fetch is slow.
func readCapped(ctx context.Context, env *tools.Env, r io.Reader, limit int, slow *atomic.Bool) ([]byte, bool, error) {
	buf := make([]byte, 0, min(limit, 64*1024))
	chunk := make([]byte, 32*1024)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, err := r.Read(chunk[:min(len(chunk), limit+1-len(buf))])
		buf = append(buf, chunk[:n]...)
		if slow.Load() {
			env.Progress("Fetching…", int64(len(buf)), -1)
		}
		if len(buf) > limit {
			return buf[:limit], true, nil
		}
		if errors.Is(err, io.EOF) {
			return buf, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

func fetchError(ctx context.Context, err error, timeout int) *tools.Error {
	var te *tools.Error
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return tools.Errorf(tools.CodeTimeout, "Web fetch timed out after %ds (tools.web.fetch.timeoutSeconds)", timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return tools.Errorf(tools.CodeInterrupted, "Web fetch interrupted")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return tools.Errorf(tools.CodeFailed, "Web fetch failed: %v", err)
}

func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.TrimSpace(strings.ToLower(ct))
}
