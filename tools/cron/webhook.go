package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/openclaw-go/openclaw/netguard"
)

// Webhook delivery: a job with delivery {mode:"webhook", to:URL} has each
// finished run that produced a summary POSTed to the URL as JSON (the
// run-log entry, as the original posts it), with
// "Authorization: Bearer <cron.webhookToken>" when one is configured. The
// SSRF guard that fetches URLs (tools.web.fetch.ssrfPolicy) applies:
// private and loopback targets are refused unless allowed there. A failed
// attempt (network error, 429, 5xx) is retried twice, after 1 s and 3 s;
// other answers are final.

var webhookRetryDelays = []time.Duration{time.Second, 3 * time.Second}

const webhookTimeout = 10 * time.Second

func (s *Service) sendWebhook(ctx context.Context, j *Job, out outcome) error {
	now := s.now()
	body, err := json.Marshal(RunEntry{TS: now, JobID: j.ID, Action: "finished", Status: out.status, Error: out.err,
		Summary: out.summary, SessionKey: out.sessionKey, JobName: j.Name})
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; ; attempt++ {
		last = s.post(ctx, j.Delivery.To, body)
		if last == nil {
			return nil
		}
		if _, final := last.(finalError); final || attempt >= len(webhookRetryDelays) {
			return last
		}
		select {
		case <-ctx.Done():
			return last
		case <-time.After(webhookRetryDelays[attempt]):
		}
	}
}

// finalError is a webhook answer not worth retrying (a refusal by the
// guard, a 4xx).
type finalError struct{ error }

// postWebhook POSTs body to target through the SSRF guard: the host is
// checked, resolved once and only the checked addresses are dialled;
// redirects are not followed.
func (s *Service) postWebhook(ctx context.Context, target string, body []byte) error {
	set := s.settings()
	u, err := netguard.ParseHTTPURL(target)
	if err != nil {
		return finalError{err}
	}
	if err := set.ssrf.CheckHost(u.Hostname()); err != nil {
		return finalError{err}
	}
	addrs, err := set.ssrf.Resolve(ctx, u.Hostname())
	if err != nil {
		return finalError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return finalError{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "openclaw-cron")
	if set.webhookToken != "" {
		req.Header.Set("Authorization", "Bearer "+set.webhookToken)
	}
	client := netguard.Client(addrs)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", u.Redacted(), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("webhook %s answered %d", u.Redacted(), resp.StatusCode)
	}
	return finalError{fmt.Errorf("webhook %s answered %d", u.Redacted(), resp.StatusCode)}
}
