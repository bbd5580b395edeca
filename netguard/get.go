package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// Options shape one guarded GET.
type Options struct {
	// MaxRedirects caps the hops followed (each one re-checked).
	MaxRedirects int
	// Header is sent on every hop.
	Header http.Header
	// What names the caller in errors ("Web fetch", "pdf", "image");
	// RedirectsKey names the setting that caps redirects, if any.
	What         string
	RedirectsKey string
}

// Get follows redirects by hand (at most MaxRedirects), running both guard
// stages on every hop and dialling only the addresses it checked. It
// returns the final response and URL; the caller closes the body.
func Get(ctx context.Context, p Policy, raw string, o Options) (*http.Response, *url.URL, error) {
	what := o.What
	if what == "" {
		what = "fetch"
	}
	u, err := ParseHTTPURL(raw)
	if err != nil {
		return nil, nil, err
	}
	for hop := 0; ; hop++ {
		if err := p.CheckHost(u.Hostname()); err != nil {
			return nil, u, err
		}
		addrs, err := p.Resolve(ctx, u.Hostname())
		if err != nil {
			return nil, u, err
		}
		client := Client(addrs)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, u, fmt.Errorf("%s: %w", what, err)
		}
		req.Header = o.Header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, u, err
		}
		if !isRedirect(resp.StatusCode) {
			return resp, u, nil
		}
		loc := resp.Header.Get("Location")
		resp.Body.Close()
		client.CloseIdleConnections()
		if loc == "" {
			return nil, u, fmt.Errorf("%s failed (%d): redirect without a Location", what, resp.StatusCode)
		}
		if hop >= o.MaxRedirects {
			hint := ""
			if o.RedirectsKey != "" {
				hint = ", " + o.RedirectsKey
			}
			return nil, u, failure.Errorf(failure.CodeFailed, "%s failed: too many redirects (limit %d%s)", what, o.MaxRedirects, hint)
		}
		next, err := u.Parse(loc)
		if err != nil {
			return nil, u, fmt.Errorf("%s failed: bad redirect Location %q: %w", what, loc, err)
		}
		if next.Scheme != "http" && next.Scheme != "https" {
			return nil, u, failure.Errorf(failure.CodeDenied, "Blocked: redirect to a %s: URL", next.Scheme)
		}
		u = next
	}
}

// Client is an HTTP client that dials only addrs (already checked), never
// through a proxy, and does not follow redirects (callers re-check hops).
func Client(addrs []netip.Addr) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // the guard decides where we connect
			DialContext:         PinnedDialer(addrs),
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: 10 * time.Second,
			DisableKeepAlives:   true,
			ForceAttemptHTTP2:   true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ReadCapped reads at most limit bytes (never more into memory) and says
// whether the body went on past them.
func ReadCapped(ctx context.Context, r io.Reader, limit int64) ([]byte, bool, error) {
	buf := make([]byte, 0, min(limit, 64*1024))
	chunk := make([]byte, 32*1024)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, err := r.Read(chunk[:min(int64(len(chunk)), limit+1-int64(len(buf)))])
		buf = append(buf, chunk[:n]...)
		if int64(len(buf)) > limit {
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

func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// ParseHTTPURL accepts http and https URLs with a host, nothing else.
func ParseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, failure.Errorf(failure.CodeInvalidParams, "Invalid URL: must be http or https")
	}
	return u, nil
}
