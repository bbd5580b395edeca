package nodehost

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/protocol"
)

func TestFormatExecCommand(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"echo", "hi"}, "echo hi"},
		{[]string{"echo", "hi there"}, `echo "hi there"`},
		{[]string{"sh", "-c", `echo "x"; exit 3`}, `sh -c "echo \"x\"; exit 3"`},
		{[]string{"printf", ""}, `printf ""`},
		{[]string{"a\tb"}, "\"a\tb\""},
	} {
		if got := formatExecCommand(c.argv); got != c.want {
			t.Errorf("%q: %s, want %s", c.argv, got, c.want)
		}
	}
}

func TestShellPayloadAndQuoting(t *testing.T) {
	if p, ok := shellPayload([]string{"/bin/bash", "-lc", "ls | wc -l"}); !ok || p != "ls | wc -l" {
		t.Errorf("bash -lc: %q %v", p, ok)
	}
	for _, argv := range [][]string{{"sh"}, {"sh", "script.sh"}, {"python3", "-c", "print(1)"}} {
		if _, ok := shellPayload(argv); ok {
			t.Errorf("%q is not a shell -c wrapper", argv)
		}
	}
	for _, s := range []string{"plain", "two words", "it's", "$HOME", "a;b", "", "x=y", "~"} {
		q := posixQuote(s)
		if s != "" && !strings.ContainsAny(s, " '$;=~") && q != s {
			t.Errorf("%q needlessly quoted: %s", s, q)
		}
		if strings.ContainsAny(s, " '$;=~") && !strings.HasPrefix(q, "'") {
			t.Errorf("%q not quoted: %s", s, q)
		}
	}
}

func TestPolicySnapshotCurrent(t *testing.T) {
	base := policySnapshot{Security: "allowlist", Ask: "on-miss", AskFallback: "deny", AllowlistRules: []policyRule{{Pattern: "/usr/bin/uname"}}}
	grown := base
	grown.AllowlistRules = append([]policyRule{{Pattern: "/usr/bin/echo", Source: "allow-always"}}, base.AllowlistRules...)
	if !base.current(grown) {
		t.Error("an added rule made the approval stale")
	}
	if base.current(policySnapshot{Security: "allowlist", Ask: "on-miss", AskFallback: "deny"}) {
		t.Error("a removed rule kept the approval")
	}
	tighter := base
	tighter.Ask = "always"
	if base.current(tighter) {
		t.Error("a changed ask kept the approval")
	}
}

func TestEncodeSnapshotScales(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 400, 200))
	for y := 0; y < 200; y++ {
		for x := 0; x < 400; x++ {
			img.Set(x, y, color.RGBA{R: 200, G: 10, B: 10, A: 255})
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	out, err := encodeSnapshot(buf.Bytes(), "png", 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds().Dx() != 100 || got.Bounds().Dy() != 50 {
		t.Errorf("scaled to %v", got.Bounds())
	}
	if r, _, _, _ := got.At(50, 25).RGBA(); r>>8 != 200 {
		t.Errorf("colour changed: %d", r>>8)
	}
	q := 0.5
	jpg, err := encodeSnapshot(buf.Bytes(), "jpeg", 0, &q)
	if err != nil || !bytes.HasPrefix(jpg, []byte{0xff, 0xd8}) {
		t.Errorf("jpeg: %v % x", err, jpg[:4])
	}
	same, _ := encodeSnapshot(buf.Bytes(), "png", 1000, nil)
	if !bytes.Equal(same, buf.Bytes()) {
		t.Error("a narrow png was re-encoded")
	}
}

func TestSkillsScan(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Join(dir, "skills", name), 0o700)
		os.WriteFile(filepath.Join(dir, "skills", name, "SKILL.md"), []byte(body), 0o600)
	}
	write("deploy", "---\nname: deploy\ndescription: Deploy the site\n---\nRun make deploy.\n")
	write("mismatch", "---\nname: other\ndescription: x\n---\n")
	write("nofront", "just text\n")
	write("big", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", maxSkillBytes))
	log := &testLog{t: t}
	h := &Host{opts: Options{StateDir: dir, Log: log}}
	got := scanSkills(h)
	if len(got) != 1 || got[0].Name != "deploy" || got[0].Description != "Deploy the site" || !strings.Contains(got[0].Content, "make deploy") {
		t.Errorf("skills: %+v", got)
	}
	for _, want := range []string{"mismatch", "nofront", "big"} {
		if !strings.Contains(log.String(), filepath.Join("skills", want)) {
			t.Errorf("no warning for %s:\n%s", want, log.String())
		}
	}
}

func TestTLSFingerprintPinned(t *testing.T) {
	gw, fp := newTestGWTLS(t, "tok")
	o := hostOptions(t, gw)
	o.TLS, o.TLSFingerprint = true, strings.ToUpper(fp[:2])+":"+fp[2:]
	runHost(t, o)
	gw.waitFor("connected over wss", func() bool { return len(gw.conns) == 1 })

	bad := hostOptions(t, gw)
	bad.TLS, bad.TLSFingerprint = true, strings.Repeat("ab", 32)
	h, err := New(bad)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := h.clientOptions()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Dial(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "does not match --tls-fingerprint") {
		t.Errorf("a wrong pin connected: %v", err)
	}
	if _, err := New(Options{Host: "127.0.0.1", TLS: true, TLSFingerprint: "xyz", StateDir: t.TempDir()}); failure.AsError(err).Code != failure.CodeUsage {
		t.Errorf("malformed pin: %v", err)
	}
}

func TestClassifyPublishFailure(t *testing.T) {
	ce := func(code, msg string) error {
		return &client.CallError{Method: "x", Code: code, Message: msg}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{ce(protocol.ErrInvalidRequest, "unknown method: node.skills.update"), "unsupported"},
		{ce(protocol.ErrInvalidRequest, "unknown method: other"), "rejected"},
		{ce(protocol.ErrInvalidRequest, "unauthorized role: node"), "unsupported"},
		{ce(protocol.ErrUnavailable, "node capability surface is awaiting operator approval"), "transient"},
	} {
		if got := classifyPublishFailure(c.err, "node.skills.update"); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}

func TestHelloCanvasBase(t *testing.T) {
	for _, c := range []struct{ hello, want string }{
		{`{}`, "http://127.0.0.1:1"},
		{`{"canvasHostUrl":"http://10.0.0.2:18789/"}`, "http://10.0.0.2:18789"},
		{`{"pluginSurfaceUrls":{"canvas":"http://h:1/__openclaw__/cap/abc"}}`, "http://h:1/__openclaw__/cap/abc"},
	} {
		if got := helloCanvasBase([]byte(c.hello), "ws://127.0.0.1:1/ctx"); got != c.want {
			t.Errorf("%s: %s", c.hello, got)
		}
	}
	if got := httpBase("wss://gw:443/x"); got != "https://gw:443" {
		t.Errorf("wss: %s", got)
	}
}
