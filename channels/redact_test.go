package channels

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/failure"
)

// Telegram puts the bot token in every request URL. When the request
// fails (nothing listening, or an API base that is no URL), the error, its
// JSON form included, names the method and the apiBaseUrl to check but
// never the token.
func TestChannelErrorsNeverCarryTheToken(t *testing.T) {
	const token = "4242:SUPERSECRETTOKEN"
	srv := httptest.NewServer(nil)
	refused := srv.URL
	srv.Close() // connection refused from here on
	for _, base := range []string{refused, "http://[::1%zz"} {
		a, err := Open(Account{Channel: "telegram", ID: "default", Token: token, TokenSource: "config", APIBase: base, Attempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, do := range []func() error{
			func() error { _, err := a.Probe(context.Background()); return err },
			func() error {
				_, err := a.Do(context.Background(), &Request{Action: "send", Target: "5", Message: "x"})
				return err
			},
		} {
			err := do()
			if err == nil {
				t.Fatalf("%s: no error", base)
			}
			js, _ := json.Marshal(failure.AsError(err))
			if strings.Contains(err.Error(), "SUPERSECRET") || strings.Contains(string(js), "SUPERSECRET") {
				t.Errorf("%s: the token is in the error: %v / %s", base, err, js)
			}
			if !strings.Contains(err.Error(), "telegram") {
				t.Errorf("%s: error does not say which channel: %v", base, err)
			}
		}
	}
}
