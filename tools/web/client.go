package web

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// guardedGet follows redirects by hand (at most maxRedirects), running both
// guard stages on every hop and dialling only the addresses it checked.
// The caller closes the returned body.
func guardedGet(ctx context.Context, p Policy, raw string, maxRedirects int, header http.Header) (*http.Response, *url.URL, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return nil, nil, err
	}
	for hop := 0; ; hop++ {
		if err := p.checkHost(u.Hostname()); err != nil {
			return nil, u, err
		}
		addrs, err := p.resolve(ctx, u.Hostname())
		if err != nil {
			return nil, u, err
		}
		tr := &http.Transport{
			Proxy:                 nil, // the guard decides where we connect
			DialContext:           pinnedDialer(addrs),
			TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 0, // the context bounds the whole fetch
			DisableKeepAlives:     true,
			ForceAttemptHTTP2:     true,
		}
		client := &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, u, fmt.Errorf("web fetch: %w", err)
		}
		req.Header = header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			return nil, u, err
		}
		if !isRedirect(resp.StatusCode) {
			return resp, u, nil
		}
		loc := resp.Header.Get("Location")
		resp.Body.Close()
		tr.CloseIdleConnections()
		if loc == "" {
			return nil, u, fmt.Errorf("Web fetch failed (%d): redirect without a Location", resp.StatusCode)
		}
		if hop >= maxRedirects {
			return nil, u, tools.Errorf(tools.CodeFailed, "Web fetch failed: too many redirects (limit %d, tools.web.fetch.maxRedirects)", maxRedirects)
		}
		next, err := u.Parse(loc)
		if err != nil {
			return nil, u, fmt.Errorf("Web fetch failed: bad redirect Location %q: %w", loc, err)
		}
		if next.Scheme != "http" && next.Scheme != "https" {
			return nil, u, tools.Errorf(tools.CodeDenied, "Blocked: redirect to a %s: URL", next.Scheme)
		}
		u = next
	}
}

func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Invalid URL: must be http or https")
	}
	return u, nil
}
