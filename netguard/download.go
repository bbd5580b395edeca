package netguard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// Download limits for media fetched by URL (pdf, image).
const (
	downloadRedirects = 3
	downloadTimeout   = 30 * time.Second
)

// TooLargeError says a download went past its byte cap; callers word it
// with their own setting names.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response is larger than %d bytes", e.Limit)
}

// Download fetches raw through the guard (redirects re-checked, at most 3,
// 30 s) and returns at most maxBytes of its body and its Content-Type. A
// body past the cap is a *TooLargeError, told by Content-Length when the
// server sends one, so nothing oversized is read.
func Download(ctx context.Context, p Policy, raw string, maxBytes int64, what string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	resp, _, err := Get(ctx, p, raw, Options{MaxRedirects: downloadRedirects, What: what,
		Header: http.Header{"Accept": {"*/*"}, "User-Agent": {"openclaw"}}})
	if err != nil {
		var fe *failure.Error
		switch {
		case errors.As(err, &fe):
			return nil, "", fe
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, "", failure.Errorf(failure.CodeTimeout, "%s: fetching %s timed out after %s", what, raw, downloadTimeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", failure.Errorf(failure.CodeFailed, "%s: fetching %s failed: %v", what, raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", failure.Errorf(failure.CodeFailed, "%s: fetching %s failed (HTTP %d)", what, raw, resp.StatusCode)
	}
	if resp.ContentLength > maxBytes {
		return nil, "", &TooLargeError{Limit: maxBytes}
	}
	b, over, err := ReadCapped(ctx, resp.Body, maxBytes)
	if err != nil {
		return nil, "", failure.Errorf(failure.CodeFailed, "%s: reading %s: %v", what, raw, err)
	}
	if over {
		return nil, "", &TooLargeError{Limit: maxBytes}
	}
	return b, resp.Header.Get("Content-Type"), nil
}
