package channels_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/commands"
	"github.com/openclaw-go/openclaw/porttest"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all"
)

// TestMain doubles as the real CLI: the tests run `openclaw serve` and
// `openclaw pairing ...` as processes of this binary (OPENCLAW_TEST_CLI=1),
// so a gateway can be killed with SIGKILL.
func TestMain(m *testing.M) {
	if os.Getenv("OPENCLAW_TEST_CLI") == "1" {
		os.Exit(commands.Main(append([]string{"openclaw"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const (
	gwToken  = "gw-secret"
	botToken = "4242:TESTTOKEN"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// emulator runs the Telegram Bot API emulator (npm telegram-test-api,
// installed by scripts/telegram-emulator.sh outside the repository) on a
// free loopback port and returns its base URL. Without node or npm the
// test fails: it never skips.
func emulator(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: the Telegram tests run the telegram-test-api emulator (Debian: apt-get install nodejs npm)")
	}
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "telegram-emulator.sh")).Output()
	if err != nil {
		t.Fatalf("install the Telegram emulator (scripts/telegram-emulator.sh): %v", err)
	}
	dir := strings.TrimSpace(string(out))
	port := porttest.Free(t)
	cmd := exec.Command("node", filepath.Join(root, "scripts", "telegram-emulator.js"), dir, strconv.Itoa(port))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuf{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("telegram emulator did not start: %q %v %s", line, err, logs.String())
	}
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// tgUser plays one Telegram user in the emulator.
type tgUser struct {
	t    *testing.T
	base string
	id   int64
	name string
	// seen is what the bot said in this chat so far.
	seen []gjson.Result
}

func post(t *testing.T, url string, body any) gjson.Result {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, data)
	}
	return gjson.ParseBytes(data)
}

// say sends a private message to the bot.
func (u *tgUser) say(text string) {
	u.t.Helper()
	post(u.t, u.base+"/sendMessage", map[string]any{
		"botToken": botToken, "date": time.Now().Unix(), "text": text,
		"from": map[string]any{"id": u.id, "is_bot": false, "first_name": u.name, "username": strings.ToLower(u.name)},
		"chat": map[string]any{"id": u.id, "type": "private", "first_name": u.name, "username": strings.ToLower(u.name)},
	})
}

// waitBot waits until the bot has said n messages in this chat in all
// and returns them.
func (u *tgUser) waitBot(n int) []gjson.Result {
	u.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for len(u.seen) < n {
		r := post(u.t, u.base+"/getUpdates", map[string]any{"token": botToken, "chatId": u.id})
		for _, m := range r.Get("result").Array() {
			u.seen = append(u.seen, m.Get("message"))
		}
		if len(u.seen) >= n {
			break
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("the bot said %d message(s), want %d: %v", len(u.seen), n, u.seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return u.seen
}

// model is a scripted OpenAI-compatible server: it answers "pong: <the
// last user text>", and holds requests whose text hold() names until
// released.
type model struct {
	mu   sync.Mutex
	reqs []string
	seen chan string
	hold func(text string) chan struct{}
}

func lastUserText(req gjson.Result) string {
	msgs := req.Get("messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Get("role").String() != "user" {
			continue
		}
		c := msgs[i].Get("content")
		if c.IsArray() {
			var sb strings.Builder
			for _, p := range c.Array() {
				sb.WriteString(p.Get("text").String())
			}
			return sb.String()
		}
		return c.String()
	}
	return ""
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	text := lastUserText(gjson.ParseBytes(b))
	m.mu.Lock()
	m.reqs = append(m.reqs, text)
	m.mu.Unlock()
	if m.seen != nil {
		select {
		case m.seen <- text:
		default:
		}
	}
	if m.hold != nil {
		if ch := m.hold(text); ch != nil {
			select {
			case <-ch:
			case <-r.Context().Done():
				return
			}
		}
	}
	answer := "pong: " + text
	switch text {
	case "quiet":
		answer = "NO_REPLY"
	case "long":
		answer = strings.Repeat("a", 3000) + "\n\n" + strings.Repeat("b", 3000)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"model": "m1", "choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 3}})
}

func (m *model) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.reqs...)
}

// rig is a state dir whose config points Telegram at the emulator and the
// default agent at the scripted model.
func rig(t *testing.T, emu, modelURL string, telegram map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	ws := filepath.Join(dir, "workspace")
	for _, d := range []string{state, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tg := map[string]any{"botToken": botToken, "apiBaseUrl": emu}
	for k, v := range telegram {
		tg[k] = v
	}
	cfg, _ := json.Marshal(map[string]any{
		"models": map[string]any{"providers": map[string]any{"loc": map[string]any{
			"baseUrl": modelURL + "/v1", "api": "openai-completions", "apiKey": "k", "models": []any{map[string]any{"id": "m1"}}}}},
		"agents":   map[string]any{"defaults": map[string]any{"model": "loc/m1", "workspace": ws}},
		"channels": map[string]any{"telegram": tg},
	})
	if err := os.WriteFile(filepath.Join(state, "openclaw.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return state
}

// gateway is one `openclaw serve` process.
type gateway struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// kill ends the gateway with SIGKILL and waits for it.
func (g *gateway) kill(t *testing.T) {
	if err := g.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-g.exited
}

// serve runs `openclaw serve` on state until /readyz answers; it returns
// the process and the gateway's URL.
func serve(t *testing.T, state string) (*gateway, string) {
	t.Helper()
	port := porttest.Free(t)
	logs := &lockedBuf{}
	cmd := exec.Command(os.Args[0], "serve", "--port", strconv.Itoa(port), "--auth", "token", "--token", gwToken)
	cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.WaitDelay = 5 * time.Second // a descendant holding the pipe never hangs the test
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("gateway log:\n%s", logs.String())
		}
	})
	base := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get("http://" + base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %s", logs.String())
		}
		select {
		case <-exited:
			t.Fatalf("gateway exited: %s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return &gateway{cmd: cmd, exited: exited}, "ws://" + base
}

// cli runs the real CLI against the gateway at url.
func cli(t *testing.T, state, url string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_TEST_CLI=1", "HOME="+filepath.Dir(state), "OPENCLAW_STATE_DIR="+state,
		"OPENCLAW_GATEWAY_URL="+url, "OPENCLAW_GATEWAY_TOKEN="+gwToken, "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

var codeRe = regexp.MustCompile("```\n([A-HJ-NP-Z2-9]{8})\n```")

// An unknown sender's DM gets a pairing code and runs nothing; after
// `openclaw pairing approve telegram CODE` (the real CLI against a real
// gateway), the next messages start agent turns on agent:main:main whose
// answers come back to the chat as replies, in order.
func TestTelegramPairingThenAgentReply(t *testing.T) {
	emu := emulator(t)
	m := &model{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	state := rig(t, emu, srv.URL, nil)
	_, url := serve(t, state)
	alice := &tgUser{t: t, base: emu, id: 5001, name: "Alice"}

	alice.say("hello?")
	got := alice.waitBot(1)
	text := got[0].Get("text").String()
	sub := codeRe.FindStringSubmatch(text)
	if sub == nil || !strings.Contains(text, "openclaw pairing approve telegram "+sub[1]) || !strings.Contains(text, "5001") {
		t.Fatalf("pairing reply = %q", text)
	}
	code := sub[1]
	// A second message from the same sender gets no second code. The
	// approval below must come after the gateway took this message in, or
	// it would be answered as an approved sender's (one CI run of two at
	// once approved first).
	before := lastInbound(t, url)
	alice.say("hello again?")
	for deadline := time.Now().Add(30 * time.Second); lastInbound(t, url) <= before; {
		if time.Now().After(deadline) {
			t.Fatal("the gateway never took in the second message")
		}
		time.Sleep(20 * time.Millisecond)
	}

	out, rc := cli(t, state, url, "pairing", "list", "telegram", "--json")
	if rc != 0 || gjson.Get(out, "requests.#").Int() != 1 || gjson.Get(out, "requests.0.code").String() != code ||
		gjson.Get(out, "requests.0.senderId").String() != "5001" {
		t.Fatalf("pairing list (%d): %s", rc, out)
	}
	if reqs := m.requests(); len(reqs) != 0 {
		t.Fatalf("a refused sender ran the model: %v", reqs)
	}
	if out, rc := cli(t, state, url, "pairing", "approve", "telegram", "WRONG234"); rc != 1 || !strings.Contains(out, "No pending pairing request found") {
		t.Fatalf("approve of an unknown code (%d): %s", rc, out)
	}
	out, rc = cli(t, state, url, "pairing", "approve", "telegram", strings.ToLower(code), "--notify")
	if rc != 0 || gjson.Get(out, "senderId").String() != "5001" || gjson.Get(out, "notification").String() != "sent" {
		t.Fatalf("pairing approve (%d): %s", rc, out)
	}
	got = alice.waitBot(2)
	if !strings.Contains(got[1].Get("text").String(), "access approved") {
		t.Fatalf("notify message = %s", got[1].Raw)
	}

	alice.say("ping")
	alice.say("second")
	got = alice.waitBot(4)
	if a, b := got[2].Get("text").String(), got[3].Get("text").String(); a != "pong: ping" || b != "pong: second" {
		t.Fatalf("replies = %q, %q", a, b)
	}
	if got[2].Get("reply_parameters.message_id").Int() == 0 {
		t.Fatalf("the answer is not a reply to the message: %s", got[2].Raw)
	}
	if reqs := m.requests(); len(reqs) != 2 || !strings.Contains(strings.Join(reqs, "|"), "ping") {
		t.Fatalf("model saw %v", reqs)
	}

	// channels.status shows the account receiving.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: gwToken, Scopes: []string{protocol.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Call(ctx, "channels.status", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	acct := gjson.GetBytes(st, "channelAccounts.telegram.0")
	if !acct.Get("running").Bool() || !acct.Get("connected").Bool() || acct.Get("lastInboundAt").Int() == 0 ||
		acct.Get("lastOutboundAt").Int() == 0 || !gjson.GetBytes(st, "channels.telegram.running").Bool() {
		t.Fatalf("channels.status = %s", st)
	}
	// The session the turns ran in is the agent's main session.
	ss, err := c.Call(ctx, "sessions.list", map[string]any{})
	if err == nil && !strings.Contains(string(ss), `"agent:main:main"`) {
		t.Fatalf("sessions.list has no agent:main:main: %s", ss)
	}
}

// A gateway killed with SIGKILL while a message's turn is in progress
// (the model call hangs) answers that message after its restart, exactly
// once: the update was recorded before it was handled, and the platform
// does not send it again.
func TestTelegramKilledGatewayAnswersOnce(t *testing.T) {
	emu := emulator(t)
	hung := make(chan struct{})
	var once sync.Once
	m := &model{seen: make(chan string, 8), hold: func(text string) chan struct{} {
		if text != "slow" {
			return nil
		}
		var ch chan struct{}
		once.Do(func() { ch = hung })
		return ch
	}}
	defer close(hung)
	srv := httptest.NewServer(m)
	defer srv.Close()
	state := rig(t, emu, srv.URL, map[string]any{"dmPolicy": "allowlist", "allowFrom": []any{"tg:6001"}})
	first, _ := serve(t, state)
	bob := &tgUser{t: t, base: emu, id: 6001, name: "Bob"}
	bob.say("slow")
	select {
	case txt := <-m.seen:
		if txt != "slow" {
			t.Fatalf("model saw %q", txt)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the turn never reached the model")
	}
	first.kill(t)

	serve(t, state)
	bob.say("after")
	got := bob.waitBot(2)
	if a, b := got[0].Get("text").String(), got[1].Get("text").String(); a != "pong: slow" || b != "pong: after" {
		t.Fatalf("replies = %q, %q (want the killed message answered once, then the next)", a, b)
	}
	// Nothing more: a third message's answer comes right after.
	bob.say("third")
	got = bob.waitBot(3)
	if s := got[2].Get("text").String(); s != "pong: third" {
		t.Fatalf("third reply = %q (all: %v)", s, got)
	}
}

// A stranger under dmPolicy "allowlist" or "disabled" runs nothing and
// gets no code; under "open" without "*" only allowFrom may talk.
func TestTelegramRefusedSendersRunNothing(t *testing.T) {
	emu := emulator(t)
	m := &model{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	state := rig(t, emu, srv.URL, map[string]any{"dmPolicy": "open", "allowFrom": []any{"7002"}})
	_, url := serve(t, state)
	eve := &tgUser{t: t, base: emu, id: 7001, name: "Eve"}
	ok := &tgUser{t: t, base: emu, id: 7002, name: "Okay"}
	eve.say("let me in")
	ok.say("hi")
	// The allowed sender's answer comes after the stranger's message was
	// handled (updates are dispatched in order).
	if got := ok.waitBot(1); got[0].Get("text").String() != "pong: hi" {
		t.Fatalf("allowed sender's reply = %s", got[0].Raw)
	}
	r := post(t, emu+"/getUpdates", map[string]any{"token": botToken, "chatId": 7001})
	if n := len(r.Get("result").Array()); n != 0 {
		t.Fatalf("the refused sender got %d message(s): %s", n, r.Raw)
	}
	if reqs := m.requests(); len(reqs) != 1 || reqs[0] != "hi" {
		t.Fatalf("model saw %v", reqs)
	}
	out, rc := cli(t, state, url, "pairing", "list", "telegram", "--json")
	if rc != 0 || gjson.Get(out, "requests.#").Int() != 0 {
		t.Fatalf("pairing list (%d): %s", rc, out)
	}
}

// docsCommands are the `openclaw ...` lines of docs/telegram.md's bash
// blocks, in order.
func docsCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/telegram.md")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "```bash"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in && strings.HasPrefix(l, "openclaw "):
			var words []string
			for _, w := range regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(l, -1) {
				words = append(words, strings.Trim(w, `"`))
			}
			out = append(out, words[1:])
		}
	}
	return out
}

// The guide docs/telegram.md works as written: its commands, run in
// order against the emulator (the token swapped for the emulator's, the
// code for the one the bot sent), get a stranger from a pairing code to
// the agent's answer.
func TestTelegramGuide(t *testing.T) {
	emu := emulator(t)
	m := &model{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	state := rig(t, emu, srv.URL, nil)
	// Start from a config with the model but no Telegram: the guide adds it.
	raw, _ := os.ReadFile(filepath.Join(state, "openclaw.json"))
	var cfg map[string]any
	_ = json.Unmarshal(raw, &cfg)
	delete(cfg, "channels")
	raw, _ = json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(state, "openclaw.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cmds := docsCommands(t)
	var verbs []string
	for _, c := range cmds {
		verbs = append(verbs, strings.Join(c[:min(2, len(c))], " "))
	}
	if got := strings.Join(verbs, "|"); got != "config set|serve|pairing list|pairing approve|channels status" {
		t.Fatalf("guide commands = %s", got)
	}
	carol := &tgUser{t: t, base: emu, id: 8001, name: "Carol"}
	url, code := "", ""
	for _, c := range cmds {
		switch {
		case c[0] == "config" && c[1] == "set":
			if c[2] != "channels.telegram.botToken" {
				t.Fatalf("guide sets %v", c)
			}
			if out, rc := cli(t, state, "", "config", "set", c[2], botToken); rc != 0 {
				t.Fatalf("config set (%d): %s", rc, out)
			}
			// The one step the guide has not: the emulator's address.
			if out, rc := cli(t, state, "", "config", "set", "channels.telegram.apiBaseUrl", emu); rc != 0 {
				t.Fatalf("config set (%d): %s", rc, out)
			}
		case c[0] == "serve":
			_, url = serve(t, state)
			carol.say("hi bot")
			sub := codeRe.FindStringSubmatch(carol.waitBot(1)[0].Get("text").String())
			if sub == nil {
				t.Fatalf("no pairing code in %s", carol.seen[0].Raw)
			}
			code = sub[1]
		case c[0] == "pairing" && c[1] == "list":
			out, rc := cli(t, state, url, append(c, "--json")...)
			if rc != 0 || gjson.Get(out, "requests.0.code").String() != code {
				t.Fatalf("%v (%d): %s", c, rc, out)
			}
		case c[0] == "pairing" && c[1] == "approve":
			args := append([]string(nil), c...)
			for i, a := range args {
				if a == "<CODE>" {
					args[i] = code
				}
			}
			if out, rc := cli(t, state, url, args...); rc != 0 {
				t.Fatalf("%v (%d): %s", args, rc, out)
			}
			carol.say("what now?")
			if got := carol.waitBot(2)[1].Get("text").String(); got != "pong: what now?" {
				t.Fatalf("answer = %q", got)
			}
		case c[0] == "channels" && c[1] == "status":
			out, rc := cli(t, state, url, append(c, "--json")...)
			if rc != 0 {
				t.Fatalf("%v (%d): %s", c, rc, out)
			}
		default:
			t.Fatalf("the guide runs %v, which this test does not know", c)
		}
	}
	if code == "" || len(m.requests()) != 1 {
		t.Fatalf("the guide did not get to an answer: code %q, model calls %v", code, m.requests())
	}
}

// NO_REPLY sends nothing; an answer over Telegram's 4096 characters goes
// out in pieces cut at the paragraph, the first one as the reply.
func TestTelegramSilentAndLongAnswers(t *testing.T) {
	emu := emulator(t)
	m := &model{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	state := rig(t, emu, srv.URL, map[string]any{"allowFrom": []any{9001}})
	serve(t, state)
	dan := &tgUser{t: t, base: emu, id: 9001, name: "Dan"}
	dan.say("quiet")
	dan.say("long")
	dan.say("end")
	got := dan.waitBot(3)
	if a, b, c := got[0].Get("text").String(), got[1].Get("text").String(), got[2].Get("text").String(); a != strings.Repeat("a", 3000) ||
		b != strings.Repeat("b", 3000) || c != "pong: end" {
		t.Fatalf("messages = %d, %d chars, %q", len(a), len(b), c)
	}
	if !got[0].Get("reply_parameters").Exists() || got[1].Get("reply_parameters").Exists() {
		t.Fatalf("only the first piece replies: %s / %s", got[0].Get("reply_parameters").Raw, got[1].Get("reply_parameters").Raw)
	}
	if reqs := m.requests(); len(reqs) != 3 || reqs[0] != "quiet" {
		t.Fatalf("model saw %v", reqs)
	}
}

// lastInbound is the Telegram account's lastInboundAt in channels.status.
func lastInbound(t *testing.T, url string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: gwToken, Scopes: []string{protocol.ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Call(ctx, "channels.status", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(st, "channelAccounts.telegram.0.lastInboundAt").Int()
}
