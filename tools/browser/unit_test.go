package browser

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestTruncateOnLineBoundary(t *testing.T) {
	text := "- a [ref=e1]\n- b [ref=e2]\n- c [ref=e3]"
	if got, cut := truncate(text, 0); got != text || cut {
		t.Errorf("uncapped: %q %v", got, cut)
	}
	got, cut := truncate(text+strings.Repeat("\n- filler line", 10), 60)
	if !cut || len(got) > 60 || !strings.HasSuffix(got, "\n\n"+truncMarker) || strings.Contains(got, "fill\n") {
		t.Errorf("cut at 60: %q", got)
	}
	if got, _ := truncate(text, 20); got != "…" && !strings.HasSuffix(got, "\n\n…") {
		t.Errorf("small cap uses …: %q", got)
	}
	refs, st := summarize("- a [ref=e1]\n\n" + truncMarker)
	if len(refs) != 1 || st.Refs != 1 {
		t.Errorf("summarize: %v %+v", refs, st)
	}
}

func TestProfileNames(t *testing.T) {
	for _, ok := range []string{"openclaw", "work-2", strings.Repeat("a", 64)} {
		if err := validProfileName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Work", "-x", "a_b", "../x", strings.Repeat("a", 65)} {
		if validProfileName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSSRFPolicy(t *testing.T) {
	ctx := context.Background()
	deny := ssrfPolicy{}
	for _, u := range []string{"http://127.0.0.1:8080/", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/latest",
		"http://192.168.0.1/", "http://100.64.0.1/", "file:///etc/passwd", "javascript:alert(1)", "http://u:p@example.com/", "http://localhost/"} {
		if err := checkURL(ctx, deny, u); err == nil {
			t.Errorf("%s allowed by the default policy", u)
		}
	}
	if err := checkURL(ctx, deny, "about:blank"); err != nil {
		t.Errorf("about:blank: %v", err)
	}
	if err := checkURL(ctx, deny, "http://93.184.215.14/"); err != nil {
		t.Errorf("public IP refused: %v", err)
	}
	allowHost := ssrfPolicy{AllowedHostnames: []string{"localhost", "*.internal.test"}}
	for _, u := range []string{"http://localhost:3000/", "http://db.internal.test/"} {
		if err := checkURL(ctx, allowHost, u); err != nil {
			t.Errorf("%s refused despite allowedHostnames: %v", u, err)
		}
	}
	if err := checkURL(ctx, ssrfPolicy{DangerouslyAllowPrivateNetwork: true}, "http://127.0.0.1/"); err != nil {
		t.Errorf("allowance ignored: %v", err)
	}
}

// syntheticText is a snapshot text of about n lines: sections of links,
// text and textboxes, as the page's script prints them.
func syntheticText(n int) string {
	var b strings.Builder
	ref := 0
	next := func() int { ref++; return ref }
	for lines := 0; lines < n; lines += 10 {
		fmt.Fprintf(&b, "- region \"Section %d\" [ref=e%d]:\n", lines/10, next())
		for i := 0; i < 3; i++ {
			fmt.Fprintf(&b, "  - link \"Read more\" [ref=e%d] [cursor=pointer]:\n    - /url: /article/%d\n", next(), i)
			fmt.Fprintf(&b, "  - textbox \"Comment\" [ref=e%d]:\n    - /placeholder: say something\n", next())
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// BenchmarkSummarize5000 is the Go half of a snapshot of a 5,000-line
// tree: the line-boundary cut, then the refs map and stats.
func BenchmarkSummarize5000(b *testing.B) {
	text := syntheticText(5000)
	b.ReportAllocs()
	for b.Loop() {
		t, _ := truncate(text, 40000)
		summarize(t)
	}
}

// TestNoSandboxAdvice: as root, Chromium without --no-sandbox refuses to
// start and the error names the setting.
func TestNoSandboxAdvice(t *testing.T) {
	if os.Geteuid() != 0 {
		if launchFailure(&profile{Name: "openclaw"}, 1, "/nonexistent") == nil {
			t.Fatal("no error")
		}
		return
	}
	dir := t.TempDir()
	log := dir + "/chromium.log"
	_ = os.WriteFile(log, []byte("[0101/000000.0:ERROR:zygote_host_impl_linux.cc(100)] Running as root without --no-sandbox is not supported. See https://crbug.com/638180.\n"), 0o600)
	err := launchFailure(&profile{Name: "openclaw"}, 18800, log)
	if err == nil || !strings.Contains(err.Error(), "browser.noSandbox=true") {
		t.Errorf("error: %v", err)
	}
}

// TestCheckRequest: the per-request guard lets through the local schemes
// that reach no network, checks http(s) and ws(s) hosts, and refuses
// every other scheme.
func TestCheckRequest(t *testing.T) {
	ctx := context.Background()
	g := ssrfPolicy{AllowedHostnames: []string{"127.0.0.1"}}.guard()
	for _, u := range []string{"data:text/plain,x", "blob:http://127.0.0.1/abc", "about:blank", "http://127.0.0.1:9/x"} {
		if err := checkRequest(ctx, g, u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	for _, u := range []string{"http://localhost:9/", "ws://[::1]:9/", "https://10.0.0.1/", "file:///etc/passwd", "ftp://127.0.0.1/", "http://0x7f.1/"} {
		if err := checkRequest(ctx, g, u); err == nil || !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if err := checkRequest(ctx, ssrfPolicy{DangerouslyAllowPrivateNetwork: true}.guard(), "http://localhost/"); err != nil {
		t.Errorf("allowance ignored: %v", err)
	}
}
