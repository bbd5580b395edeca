package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/failure"
)

// These tests cover the guarded GET (Get, Download, ReadCapped and the
// pinned dialer) inside netguard, so its mutation score does not depend
// on tools/web's tests (issue 17, item 20). The site is a local server
// standing in for a remote one: "site.test" resolves to 127.0.0.1 through
// WithResolver, and the policy allows that one name.

func site(t *testing.T, h http.HandlerFunc) (context.Context, Policy, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx := WithResolver(context.Background(), func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "site.test" || host == "other.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	})
	return ctx, Policy{AllowedHostnames: []string{"site.test"}}, "http://site.test:" + port
}

func code(err error) string {
	var fe *failure.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

// Redirects are followed up to MaxRedirects, each hop re-checked (a hop
// to a name the policy does not allow, resolving to loopback, is refused);
// a redirect without a Location, or to another scheme, is an error.
func TestGetRedirects(t *testing.T) {
	ctx, p, base := site(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hop2":
			http.Redirect(w, r, "/hop1", http.StatusFound)
		case "/hop1":
			http.Redirect(w, r, "/end", http.StatusMovedPermanently)
		case "/end":
			fmt.Fprint(w, "ua="+r.Header.Get("User-Agent"))
		case "/nolocation":
			w.WriteHeader(http.StatusFound)
		case "/ftp":
			w.Header().Set("Location", "ftp://site.test/x")
			w.WriteHeader(http.StatusFound)
		case "/elsewhere":
			_, port, _ := net.SplitHostPort(r.Host)
			http.Redirect(w, r, "http://other.test:"+port+"/end", http.StatusTemporaryRedirect)
		}
	})
	resp, u, err := Get(ctx, p, base+"/hop2", Options{MaxRedirects: 2, Header: http.Header{"User-Agent": {"probe"}}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if u.Path != "/end" || string(body) != "ua=probe" {
		t.Errorf("two redirects: %s %q", u, body)
	}
	if _, _, err := Get(ctx, p, base+"/hop2", Options{MaxRedirects: 1, What: "probe", RedirectsKey: "probe.maxRedirects"}); err == nil ||
		!strings.Contains(err.Error(), "too many redirects (limit 1, probe.maxRedirects)") {
		t.Errorf("past MaxRedirects: %v", err)
	}
	if _, _, err := Get(ctx, p, base+"/nolocation", Options{MaxRedirects: 2}); err == nil || err.Error() != "fetch failed (302): redirect without a Location" {
		t.Errorf("no Location (errors named fetch by default): %v", err)
	}
	if _, _, err := Get(ctx, p, base+"/nolocation", Options{MaxRedirects: 2, What: "pdf"}); err == nil || !strings.HasPrefix(err.Error(), "pdf failed (302)") {
		t.Errorf("no Location, What pdf: %v", err)
	}
	if _, _, err := Get(ctx, p, base+"/ftp", Options{MaxRedirects: 2}); code(err) != failure.CodeDenied {
		t.Errorf("redirect to ftp: %v", err)
	}
	if _, _, err := Get(ctx, p, base+"/elsewhere", Options{MaxRedirects: 2}); code(err) != failure.CodeDenied || !strings.Contains(err.Error(), "Blocked") {
		t.Errorf("redirect to a loopback name the policy does not allow: %v", err)
	}
	if _, _, err := Get(ctx, p, "file:///etc/passwd", Options{}); code(err) != failure.CodeInvalidParams {
		t.Errorf("file URL: %v", err)
	}
}

// Every redirect status is one (and 200, 304 are not).
func TestIsRedirect(t *testing.T) {
	for c, want := range map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true, 200: false, 300: false, 304: false, 309: false} {
		if isRedirect(c) != want {
			t.Errorf("isRedirect(%d) = %v", c, !want)
		}
	}
}

// Download: a 2xx body up to the cap with its type; a body past the cap
// (told by Content-Length, or found reading) is a *TooLargeError; a non-2xx
// status fails.
func TestDownloadCapsAndStatus(t *testing.T) {
	ctx, p, base := site(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "0123456789")
		case "/chunked":
			w.(http.Flusher).Flush() // no Content-Length
			fmt.Fprint(w, "0123456789A")
		case "/missing":
			http.NotFound(w, r)
		case "/created":
			w.WriteHeader(http.StatusNoContent)
		case "/s299":
			w.WriteHeader(299)
			fmt.Fprint(w, "edge")
		case "/s300":
			w.WriteHeader(300)
		}
	})
	b, ct, err := Download(ctx, p, base+"/ok", 10, "probe")
	if err != nil || string(b) != "0123456789" || ct != "image/png" {
		t.Fatalf("exactly the cap: %q %q %v", b, ct, err)
	}
	var tl *TooLargeError
	if _, _, err := Download(ctx, p, base+"/ok", 9, "probe"); !errors.As(err, &tl) || tl.Limit != 9 {
		t.Errorf("Content-Length past the cap: %v", err)
	}
	if _, _, err := Download(ctx, p, base+"/chunked", 10, "probe"); !errors.As(err, &tl) || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("body past the cap: %v", err)
	}
	if _, _, err := Download(ctx, p, base+"/missing", 10, "probe"); code(err) != failure.CodeFailed || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("404: %v", err)
	}
	if b, _, err := Download(ctx, p, base+"/created", 10, "probe"); err != nil || len(b) != 0 {
		t.Errorf("204: %q %v", b, err)
	}
	if b, _, err := Download(ctx, p, base+"/s299", 10, "probe"); err != nil || string(b) != "edge" {
		t.Errorf("299 is 2xx: %q %v", b, err)
	}
	if _, _, err := Download(ctx, p, base+"/s300", 10, "probe"); err == nil || !strings.Contains(err.Error(), "HTTP 300") {
		t.Errorf("300: %v", err)
	}
	if _, _, err := Download(ctx, p, "http://nowhere.test/x", 10, "probe"); code(err) != failure.CodeFailed || !strings.Contains(err.Error(), "probe: fetching") {
		t.Errorf("unresolvable host: %v", err)
	}
}

// ReadCapped reads exactly up to limit and says whether more followed.
func TestReadCapped(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int64
		want  string
		over  bool
	}{
		{"abc", 3, "abc", false}, {"abcd", 3, "abc", true}, {"", 3, "", false}, {"abc", 0, "", true},
		{strings.Repeat("x", 100_000), 70_000, strings.Repeat("x", 70_000), true},
	} {
		got, over, err := ReadCapped(context.Background(), strings.NewReader(c.in), c.limit)
		if err != nil || string(got) != c.want || over != c.over {
			t.Errorf("%d bytes, limit %d: %d bytes over=%v %v", len(c.in), c.limit, len(got), over, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ReadCapped(ctx, strings.NewReader("abc"), 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, _, err := ReadCapped(context.Background(), io.MultiReader(strings.NewReader("ab"), errReader{}), 10); err == nil || err.Error() != "boom" {
		t.Errorf("read error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

// The pinned dialer tries each checked address in turn, on the port asked
// for, and reports the first failure when none answers.
func TestPinnedDialerTriesEachAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	// 127.0.0.2 has nothing listening on this port: refused, then the next.
	dial := PinnedDialer([]netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")})
	c, err := dial(context.Background(), "tcp", "anything.test:"+port)
	if err != nil {
		t.Fatalf("second address not tried: %v", err)
	}
	if got := c.RemoteAddr().String(); got != "127.0.0.1:"+port {
		t.Errorf("dialled %s", got)
	}
	c.Close()
	if _, err := PinnedDialer([]netip.Addr{netip.MustParseAddr("127.0.0.2")})(context.Background(), "tcp", "x:"+port); err == nil ||
		!strings.Contains(err.Error(), "127.0.0.2:"+port) {
		t.Errorf("no address answers: %v", err)
	}
	if _, err := PinnedDialer(nil)(context.Background(), "tcp", "no-port"); err == nil {
		t.Error("an address without a port was dialled")
	}
}

// Only http and https URLs with a host are fetched.
func TestParseHTTPURL(t *testing.T) {
	for raw, ok := range map[string]bool{"http://a.test/x": true, "https://a.test": true, "HTTPS://a.test": true,
		"ftp://a.test/x": false, "file:///etc/passwd": false, "http://": false, "gopher://a.test": false, "a.test/x": false} {
		if _, err := ParseHTTPURL(raw); (err == nil) != ok {
			t.Errorf("%s: %v, want ok=%v", raw, err, ok)
		}
	}
}

// An https site whose certificate no public root signs fails on the
// certificate, well within the TLS handshake timeout.
func TestGetHTTPSChecksTheCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx := WithResolver(context.Background(), func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	_, _, err := Get(ctx, Policy{AllowedHostnames: []string{"site.test"}}, "https://site.test:"+port+"/", Options{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("self-signed https: %v, want a certificate error", err)
	}
}
