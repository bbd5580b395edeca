package channels

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
)

// maxResponse caps one API response body.
const maxResponse = 8 << 20

// defaultTimeout bounds one API call when the caller's context has no
// deadline of its own.
const defaultTimeout = 60 * time.Second

// httpClient is shared by every adapter (connection reuse across sends).
var httpClient = &http.Client{Transport: &http.Transport{
	Proxy:               http.ProxyFromEnvironment,
	MaxIdleConnsPerHost: 16,
	IdleConnTimeout:     90 * time.Second,
	TLSHandshakeTimeout: 10 * time.Second,
}}

// api is one account's HTTP caller with the 429 handling.
type api struct {
	acct Account
	// auth sets the credentials on a request (Discord and Slack headers;
	// Telegram has the token in the path).
	auth func(h http.Header)
}

// body is a request body that can be built again for a retry.
type body struct {
	data        []byte
	contentType string
}

func jsonBody(v any) (*body, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &body{data: b, contentType: "application/json"}, nil
}

func formBody(v url.Values) *body {
	return &body{data: []byte(v.Encode()), contentType: "application/x-www-form-urlencoded"}
}

// part is one multipart file part.
type part struct {
	field string
	media Media
}

// multipartBody builds multipart/form-data with fields first, then files.
func multipartBody(fields [][2]string, files []part) (*body, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	for _, p := range files {
		h := make(textproto.MIMEHeader)
		name := p.media.Name
		if name == "" {
			name = "file"
		}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, escapeQuotes(p.field), escapeQuotes(name)))
		ct := p.media.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		pw, err := w.CreatePart(h)
		if err != nil {
			return nil, err
		}
		if _, err := pw.Write(p.media.Data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &body{data: buf.Bytes(), contentType: w.FormDataContentType()}, nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }

// response is one API answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) json() gjson.Result { return gjson.ParseBytes(r.body) }

// call sends one request, retrying a 429 after the platform's retry_after
// (Telegram parameters.retry_after, Discord retry_after, or Retry-After)
// at most Attempts times in all, each wait at most MaxDelay, the context
// honoured while waiting. Any other status is the caller's to judge.
func (a *api) call(ctx context.Context, method, rawURL string, b *body) (*response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	attempts := max(a.acct.Attempts, 1)
	for try := 1; ; try++ {
		var rd io.Reader
		if b != nil {
			rd = bytes.NewReader(b.data)
		}
		req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
		if err != nil {
			return nil, a.redactErr(fmt.Errorf("%s: build request: %w", a.acct.Channel, err))
		}
		if b != nil {
			req.Header.Set("Content-Type", b.contentType)
		}
		req.Header.Set("User-Agent", "openclaw-go")
		if a.auth != nil {
			a.auth(req.Header)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
				return nil, failure.Wrap(failure.CodeTimeout, a.redact(fmt.Sprintf("%s: %s %s timed out: check channels.%s.apiBaseUrl (%s) is reachable",
					a.acct.Channel, method, a.path(rawURL), a.acct.Channel, a.acct.APIBase)), err)
			}
			cause := err
			var ue *url.Error
			if errors.As(err, &ue) {
				cause = ue.Err // the method and URL are said already
			}
			return nil, failure.Wrap(failure.CodeFailed, a.redact(fmt.Sprintf("%s: %s %s: %v: check channels.%s.apiBaseUrl (%s) and the network",
				a.acct.Channel, method, a.path(rawURL), cause, a.acct.Channel, a.acct.APIBase)), err)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
		resp.Body.Close()
		if err != nil {
			return nil, failure.Wrap(failure.CodeFailed, a.redact(fmt.Sprintf("%s: %s %s: read response: %v", a.acct.Channel, method, a.path(rawURL), err)), err)
		}
		if len(data) > maxResponse {
			return nil, failure.Errorf(failure.CodeFailed, "%s: %s %s: response larger than %d bytes", a.acct.Channel, method, a.path(rawURL), maxResponse)
		}
		r := &response{status: resp.StatusCode, header: resp.Header, body: data}
		if r.status != http.StatusTooManyRequests {
			return r, nil
		}
		wait := retryAfter(r)
		desc := apiErrorText(r)
		if try >= attempts {
			return nil, failure.Errorf(failure.CodeFailed, "%s: rate limited by the API (429: %s) after %d attempts: wait %s and retry, or raise channels.%s.retry.attempts",
				a.acct.Channel, desc, try, wait, a.acct.Channel).WithDetails(map[string]any{"channel": a.acct.Channel, "status": 429, "retryAfterMs": wait.Milliseconds()})
		}
		if wait > a.acct.MaxDelay {
			return nil, failure.Errorf(failure.CodeFailed, "%s: rate limited by the API (429: %s): retry after %s is longer than channels.%s.retry.maxDelayMs (%s)",
				a.acct.Channel, desc, wait, a.acct.Channel, a.acct.MaxDelay).WithDetails(map[string]any{"channel": a.acct.Channel, "status": 429, "retryAfterMs": wait.Milliseconds()})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, failure.Wrap(failure.CodeTimeout, fmt.Sprintf("%s: gave up waiting %s for the rate limit: %v", a.acct.Channel, wait, ctx.Err()), ctx.Err())
		case <-t.C:
		}
	}
}

// retryAfter reads the platform's wait: Telegram parameters.retry_after
// (seconds), Discord's body retry_after (seconds, fractional), else the
// Retry-After header (seconds or an HTTP date); 1 s when none says.
func retryAfter(r *response) time.Duration {
	j := r.json()
	for _, p := range []string{"parameters.retry_after", "retry_after"} {
		if v := j.Get(p); v.Exists() && v.Float() >= 0 {
			return time.Duration(v.Float() * float64(time.Second))
		}
	}
	if h := strings.TrimSpace(r.header.Get("Retry-After")); h != "" {
		if n, err := strconv.ParseFloat(h, 64); err == nil && n >= 0 {
			return time.Duration(n * float64(time.Second))
		}
		if t, err := http.ParseTime(h); err == nil {
			return max(time.Until(t), 0)
		}
	}
	return time.Second
}

// apiErrorText is the platform's own error text: Telegram description,
// Discord message (+code), Slack error (+needed scope), else the status.
func apiErrorText(r *response) string {
	j := r.json()
	if d := j.Get("description").String(); d != "" {
		return d
	}
	if m := j.Get("message").String(); m != "" {
		if c := j.Get("code"); c.Exists() && c.Int() != 0 {
			return fmt.Sprintf("%s (code %d)", m, c.Int())
		}
		return m
	}
	if e := j.Get("error").String(); e != "" {
		if n := j.Get("needed").String(); n != "" {
			return fmt.Sprintf("%s (needed: %s; provided: %s)", e, n, j.Get("provided").String())
		}
		return e
	}
	s := strings.TrimSpace(string(r.body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return http.StatusText(r.status)
	}
	return s
}

// path is the URL without the API base (and so without Telegram's token).
func (a *api) path(rawURL string) string {
	return strings.TrimPrefix(a.redact(rawURL), a.acct.APIBase)
}

func (a *api) redact(s string) string {
	if a.acct.Token == "" {
		return s
	}
	return strings.ReplaceAll(s, a.acct.Token, "<token>")
}

func (a *api) redactErr(err error) error { return errors.New(a.redact(err.Error())) }

// apiError is the error for a non-OK answer: the channel, the method, the
// API's own text, and what to check for the usual causes.
func (a *api) apiError(what string, r *response) error {
	text := apiErrorText(r)
	hint := ""
	switch {
	case r.status == http.StatusUnauthorized:
		where := "channels." + a.acct.Channel
		if a.acct.ID != "" && a.acct.ID != DefaultAccount {
			where += ".accounts." + a.acct.ID
		}
		hint = fmt.Sprintf("; check the token (%s, source %s)", where, a.acct.TokenSource)
	case r.status == http.StatusForbidden || strings.Contains(text, "missing_scope") || strings.Contains(text, "not_allowed"):
		hint = "; check the bot's permissions in that chat/channel (and its scopes)"
	case r.status == http.StatusNotFound || strings.Contains(text, "not found") || strings.Contains(text, "not_found"):
		hint = "; check the target id and that the bot is a member"
	case r.status == http.StatusBadRequest:
		hint = "; check the target and params"
	}
	code := failure.CodeFailed
	if r.status == http.StatusUnauthorized {
		code = failure.CodeAuth
	}
	return failure.Errorf(code, "%s: %s failed: %s (HTTP %d)%s", a.acct.Channel, what, text, r.status, hint).
		WithDetails(map[string]any{"channel": a.acct.Channel, "status": r.status, "apiError": text})
}
