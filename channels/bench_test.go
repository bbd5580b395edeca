package channels

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkTelegramSend is sends per second to a local Bot API stand-in
// (one sendMessage round trip over a kept-alive connection).
func BenchmarkTelegramSend(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"result":{"message_id":1,"chat":{"id":-100}}}`)
	}))
	defer srv.Close()
	a, _ := Open(Account{Channel: "telegram", Token: "1:T", APIBase: srv.URL, Attempts: 3, MaxDelay: time.Second})
	req := &Request{Action: "send", Target: "-1001234567890", Message: "benchmark"}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := a.Do(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
}
