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

func TestRenderEscapesNames(t *testing.T) {
	out := render([]*node{{Role: "button", Name: "a\n- link \"x\" [ref=e9]", Ref: "e1"}}, false)
	if strings.Count(out, "\n") != 0 || !strings.Contains(out, `\n`) {
		t.Errorf("a name with a newline forged a line: %q", out)
	}
	if render(nil, true) != "(no interactive elements)" || render(nil, false) != "(empty)" {
		t.Error("empty snapshots")
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

// synthetic builds a tree of about n nodes: sections of forms and links.
func synthetic(n int) []*node {
	var out []*node
	ref := 0
	next := func() string { ref++; return fmt.Sprintf("e%d", ref) }
	for len(out)*10 < n {
		sec := &node{Role: "region", Name: fmt.Sprintf("Section %d", len(out)), Ref: next()}
		for i := 0; i < 3; i++ {
			sec.Children = append(sec.Children,
				&node{Role: "link", Name: "Read more", Ref: next(), Cursor: true, URL: "/article/" + fmt.Sprint(i)},
				&node{Role: "text", Name: "Some text between links"},
				&node{Role: "textbox", Name: "Comment", Ref: next(), Placeholder: "say something"})
		}
		out = append(out, sec)
	}
	return out
}

func BenchmarkRender5000(b *testing.B) {
	nodes := synthetic(5000)
	b.ReportAllocs()
	for b.Loop() {
		text := render(nodes, false)
		text, _ = truncate(text, 40000)
		summarize(text)
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
