package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/netguard"
	"github.com/openclaw-go/openclaw/tools"
)

// Firecrawl defaults (spec §6.7).
const (
	firecrawlDefaultBase    = "https://api.firecrawl.dev"
	firecrawlDefaultMaxAge  = 172_800_000 // ms, two days
	firecrawlDefaultTimeout = 60          // seconds
	firecrawlBodyCap        = 16 << 20
)

// firecrawlConfig is tools.web.fetch.firecrawl: a hosted renderer asked
// for the page when a plain GET cannot give readable text (JS-only pages,
// bot walls, readability turned off).
type firecrawlConfig struct {
	Enabled         *bool  `json:"enabled"`
	APIKey          any    `json:"apiKey"`
	BaseURL         string `json:"baseUrl"`
	OnlyMainContent *bool  `json:"onlyMainContent"`
	MaxAgeMs        *int64 `json:"maxAgeMs"`
	TimeoutSeconds  int    `json:"timeoutSeconds"`

	key string
}

// loadFirecrawl returns the resolved settings, or nil when Firecrawl is
// off: enabled:false, or enabled unset and no key in config or
// FIRECRAWL_API_KEY.
func loadFirecrawl(cfg *config.Config) *firecrawlConfig {
	var f firecrawlConfig
	if cfg != nil {
		_ = cfg.Decode("tools.web.fetch.firecrawl", &f)
	}
	f.key = config.Secret(f.APIKey)
	if f.key == "" {
		f.key = strings.TrimSpace(os.Getenv("FIRECRAWL_API_KEY"))
	}
	if f.Enabled != nil && !*f.Enabled {
		return nil
	}
	if f.Enabled == nil && f.key == "" {
		return nil
	}
	if f.BaseURL == "" {
		f.BaseURL = strings.TrimSpace(os.Getenv("FIRECRAWL_BASE_URL"))
	}
	if f.BaseURL == "" {
		f.BaseURL = firecrawlDefaultBase
	}
	if f.TimeoutSeconds <= 0 {
		f.TimeoutSeconds = firecrawlDefaultTimeout
	}
	return &f
}

// endpoint is <base>/v2/scrape unless the base already names a path.
func (f *firecrawlConfig) endpoint() (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(f.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "tools.web.fetch.firecrawl.baseUrl %q is not an http(s) URL", f.BaseURL)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v2/scrape"
	}
	return u, nil
}

// firecrawlPage is what the scrape answered.
type firecrawlPage struct {
	Markdown, Title, SourceURL, Warning string
	Status                              int
}

// scrape asks Firecrawl for target's Markdown. The operator chose the
// base URL, so its host is allowed past the private-address checks, but
// the connection is still pinned to the address that was checked.
func (f *firecrawlConfig) scrape(ctx context.Context, target string) (*firecrawlPage, error) {
	ep, err := f.endpoint()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(f.TimeoutSeconds)*time.Second)
	defer cancel()
	policy := netguard.Policy{AllowedHostnames: []string{ep.Hostname()}}
	if err := policy.CheckHost(ep.Hostname()); err != nil {
		return nil, err
	}
	addrs, err := policy.Resolve(ctx, ep.Hostname())
	if err != nil {
		return nil, tools.Errorf(tools.CodeUnreachable, "Firecrawl fetch failed: %v", err)
	}
	onlyMain := true
	if f.OnlyMainContent != nil {
		onlyMain = *f.OnlyMainContent
	}
	maxAge := int64(firecrawlDefaultMaxAge)
	if f.MaxAgeMs != nil && *f.MaxAgeMs >= 0 {
		maxAge = *f.MaxAgeMs
	}
	body, _ := json.Marshal(map[string]any{
		"url": target, "formats": []string{"markdown"}, "onlyMainContent": onlyMain,
		"timeout": f.TimeoutSeconds * 1000, "maxAge": maxAge, "proxy": "auto", "storeInCache": true,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("Firecrawl fetch: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if f.key != "" {
		req.Header.Set("Authorization", "Bearer "+f.key)
	}
	resp, err := netguard.Client(addrs).Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, tools.Errorf(tools.CodeTimeout, "Firecrawl fetch timed out after %ds (tools.web.fetch.firecrawl.timeoutSeconds)", f.TimeoutSeconds)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, tools.Errorf(tools.CodeUnreachable, "Firecrawl fetch failed: %v", err)
	}
	defer resp.Body.Close()
	raw, _, err := netguard.ReadCapped(ctx, resp.Body, firecrawlBodyCap)
	if err != nil {
		return nil, fmt.Errorf("Firecrawl fetch: %w", err)
	}
	var out struct {
		Success *bool  `json:"success"`
		Error   string `json:"error"`
		Warning string `json:"warning"`
		Data    struct {
			Markdown string `json:"markdown"`
			Content  string `json:"content"`
			Metadata struct {
				Title      string `json:"title"`
				SourceURL  string `json:"sourceURL"`
				StatusCode int    `json:"statusCode"`
			} `json:"metadata"`
		} `json:"data"`
	}
	jsonErr := json.Unmarshal(raw, &out)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || jsonErr != nil || (out.Success != nil && !*out.Success) {
		detail := out.Error
		if detail == "" {
			detail = strings.TrimSpace(string(raw[:min(len(raw), 500)]))
		}
		if f.key != "" {
			detail = strings.ReplaceAll(detail, f.key, "***")
		}
		code := tools.CodeFailed
		if resp.StatusCode == 401 || resp.StatusCode == 403 {
			code = tools.CodeAuth
			detail += " (check tools.web.fetch.firecrawl.apiKey or FIRECRAWL_API_KEY)"
		}
		return nil, tools.Errorf(code, "Firecrawl fetch failed (%d): %s", resp.StatusCode, wrap(detail, "Firecrawl", false))
	}
	page := &firecrawlPage{Markdown: out.Data.Markdown, Title: out.Data.Metadata.Title, SourceURL: out.Data.Metadata.SourceURL,
		Status: out.Data.Metadata.StatusCode, Warning: out.Warning}
	if page.Markdown == "" {
		page.Markdown = out.Data.Content
	}
	return page, nil
}
