package message_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// botAPI is a Telegram Bot API stand-in recording each call's params.
type botAPI struct {
	mu    sync.Mutex
	calls []map[string]any
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := map[string]any{"_method": r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		r.ParseMultipartForm(8 << 20)
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
		for k := range r.MultipartForm.File {
			p["_file"] = k
		}
	} else {
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		dec.Decode(&p)
	}
	b.mu.Lock()
	b.calls = append(b.calls, p)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ok":true,"result":{"message_id":7,"chat":{"id":1}}}`)
}

func (b *botAPI) last(t *testing.T) map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.calls) == 0 {
		t.Fatal("no call reached the Bot API")
	}
	return b.calls[len(b.calls)-1]
}

func setup(t *testing.T, extra map[string]any) (*botAPI, *tools.Env) {
	t.Helper()
	b := &botAPI{}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	doc := map[string]any{"channels": map[string]any{"telegram": map[string]any{"botToken": "1:T", "apiBaseUrl": srv.URL}}}
	for k, v := range extra {
		doc[k] = v
	}
	cfg := config.Empty()
	cfg.Doc = doc
	dir := t.TempDir()
	return b, &tools.Env{Config: cfg, StateDir: dir, Workspace: filepath.Join(dir, "ws")}
}

func send(env *tools.Env, args string) (map[string]any, error) {
	out, err := tools.Invoke(context.Background(), env, tools.Call{Tool: "message", Verb: "send", Args: json.RawMessage(args)})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(out, &m)
}

func exitOf(err error) int {
	var fe *failure.Error
	if errors.As(err, &fe) {
		return fe.ExitCode()
	}
	return -1
}

func TestSessionBoundSendDefaultsToItsConversation(t *testing.T) {
	b, env := setup(t, nil)
	env.Subject = tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:telegram:group:-100111:topic:9"}
	res, err := send(env, `{"message":"hi"}`)
	if err != nil {
		t.Fatal(err)
	}
	c := b.last(t)
	if c["chat_id"] != json.Number("-100111") || c["message_thread_id"] != json.Number("9") || res["messageId"] != "7" {
		t.Fatalf("call %v result %v", c, res)
	}
	// Its own conversation in another spelling is the same conversation.
	if _, err := send(env, `{"target":"telegram:-100111","message":"again"}`); err != nil {
		t.Fatal(err)
	}
}

func TestCrossContext(t *testing.T) {
	_, env := setup(t, nil)
	env.Subject = tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:telegram:group:-100111"}
	// Another Telegram chat: denied by default (allowWithinProvider false).
	if _, err := send(env, `{"target":"-100222","message":"x"}`); exitOf(err) != 3 || !strings.Contains(err.Error(), "allowWithinProvider") {
		t.Fatalf("%v", err)
	}
	// Widened: another chat on the same channel is allowed.
	_, wide := setup(t, map[string]any{"tools": map[string]any{"message": map[string]any{"crossContext": map[string]any{"allowWithinProvider": true}}}})
	wide.Subject = env.Subject
	if _, err := send(wide, `{"target":"-100222","message":"x"}`); err != nil {
		t.Fatal(err)
	}
	// Another channel: denied by default (allowAcrossProviders false), exit 3.
	_, err := send(env, `{"channel":"discord","target":"channel:5","message":"x"}`)
	if exitOf(err) != 3 || !strings.Contains(err.Error(), "Cross-context messaging denied") || !strings.Contains(err.Error(), "telegram:-100111") {
		t.Fatalf("%v", err)
	}
	// Strict: only the session's own conversation.
	b, strict := setup(t, map[string]any{"tools": map[string]any{"message": map[string]any{"crossContext": map[string]any{"allowWithinProvider": false}}}})
	strict.Subject = env.Subject
	_, err = send(strict, `{"target":"-100222","message":"x"}`)
	if exitOf(err) != 3 || !strings.Contains(err.Error(), "allowWithinProvider") {
		t.Fatalf("%v", err)
	}
	if len(b.calls) != 0 {
		t.Fatalf("a denied send reached the API: %v", b.calls)
	}
	// Reads are not governed: member-info of another chat is fine.
	if _, err := tools.Invoke(context.Background(), strict, tools.Call{Tool: "message", Verb: "member-info",
		Args: json.RawMessage(`{"target":"-100222","userId":"5"}`)}); err != nil {
		t.Fatal(err)
	}
	// A call naming a session is bound by it too (the params only narrow).
	_, op := setup(t, map[string]any{"tools": map[string]any{"message": map[string]any{"crossContext": map[string]any{"allowWithinProvider": false}}}})
	if _, err := send(op, `{"sessionKey":"agent:main:telegram:direct:42","target":"43","message":"x"}`); exitOf(err) != 3 {
		t.Fatalf("%v", err)
	}
	// A session that names no conversation (cron) is not bound.
	env.Subject.SessionKey = "agent:main:cron:job1"
	if _, err := send(env, `{"target":"-100222","message":"x"}`); err != nil {
		t.Fatal(err)
	}
}

func TestMediaRootsForModels(t *testing.T) {
	b, env := setup(t, nil)
	if err := os.MkdirAll(env.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(env.Workspace, "chart.png")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for _, f := range []string{inside, outside} {
		if err := os.WriteFile(f, []byte("data"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env.Subject = tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:cron:x"}
	if _, err := send(env, `{"target":"1","media":"chart.png"}`); err != nil {
		t.Fatal(err)
	}
	if c := b.last(t); c["_method"] != "sendPhoto" || c["_file"] != "photo" {
		t.Fatalf("%v", c)
	}
	_, err := send(env, `{"target":"1","media":"`+outside+`"}`)
	if exitOf(err) != 3 || !strings.Contains(err.Error(), "outside the media roots") {
		t.Fatalf("%v", err)
	}
	// The local user attaches any file.
	env.Subject = tools.Subject{}
	if _, err := send(env, `{"target":"1","media":"`+outside+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := send(env, `{"target":"1","media":"data:text/plain;base64,eA=="}`); exitOf(err) != 2 {
		t.Fatalf("%v", err)
	}
	if _, err := send(env, `{"target":"1","buffer":"data:text/plain;base64,aGVsbG8=","filename":"a.txt"}`); err != nil {
		t.Fatal(err)
	}
	if c := b.last(t); c["_method"] != "sendDocument" {
		t.Fatalf("%v", c)
	}
}

func TestChannelSelection(t *testing.T) {
	_, env := setup(t, map[string]any{})
	env.Config.Doc["channels"].(map[string]any)["slack"] = map[string]any{"botToken": "xoxb-1"}
	_, err := send(env, `{"target":"C1","message":"x"}`)
	if exitOf(err) != 2 || !strings.Contains(err.Error(), "Channel is required when multiple channels are configured: slack, telegram") {
		t.Fatalf("%v", err)
	}
	// A provider-prefixed target selects the channel.
	if _, err := send(env, `{"target":"telegram:5","message":"x"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := send(env, `{"channel":"whatsapp","target":"+15555550123","message":"x"}`); exitOf(err) != 2 || !strings.Contains(err.Error(), "not supported on whatsapp") {
		t.Fatalf("%v", err)
	}
	// tools.message.actions.allow limits the actions.
	env.Config.Doc["tools"] = map[string]any{"message": map[string]any{"actions": map[string]any{"allow": []any{"read"}}}}
	if _, err := send(env, `{"target":"telegram:5","message":"x"}`); exitOf(err) != 3 || !strings.Contains(err.Error(), "tools.message.actions.allow") {
		t.Fatalf("%v", err)
	}
	delete(env.Config.Doc, "tools")
	_, err = tools.Invoke(context.Background(), env, tools.Call{Tool: "message", Verb: "poll", Args: json.RawMessage(`{"channel":"slack","target":"C1","pollQuestion":"q","pollOption":["a","b"]}`)})
	if exitOf(err) != 2 || !strings.Contains(err.Error(), "not supported on slack") {
		t.Fatalf("%v", err)
	}
}

// A hard link made in the workspace to a file elsewhere passes the roots
// check by its name; a model's attachment of it is refused (exit 3) and
// nothing reaches the channel. The local user may still attach it.
func TestMediaHardLinkRefusedForModels(t *testing.T) {
	b, env := setup(t, nil)
	if err := os.MkdirAll(env.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(env.Workspace, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	env.Subject = tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:cron:x"}
	_, err := send(env, `{"target":"1","media":"linked.txt"}`)
	if exitOf(err) != 3 || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("hard-linked media: %v", err)
	}
	if len(b.calls) != 0 {
		t.Fatalf("a refused attachment reached the API: %v", b.calls)
	}
	env.Subject = tools.Subject{}
	if _, err := send(env, `{"target":"1","media":"`+filepath.Join(env.Workspace, "linked.txt")+`"}`); err != nil {
		t.Fatal(err)
	}
}

// react is a mutation under the cross-context rule: a model bound to one
// chat cannot react in another (exit 3, nothing reaches the API), and reacts
// in its own.
func TestReactUnderCrossContext(t *testing.T) {
	b, env := setup(t, nil)
	env.Subject = tools.Subject{Kind: tools.CallerAgent, SessionKey: "agent:main:telegram:group:-100111"}
	react := func(args string) error {
		_, err := tools.Invoke(context.Background(), env, tools.Call{Tool: "message", Verb: "react", Args: json.RawMessage(args)})
		return err
	}
	err := react(`{"target":"-100222","messageId":"5","emoji":"👍"}`)
	if exitOf(err) != 3 || !strings.Contains(err.Error(), "allowWithinProvider") {
		t.Fatalf("react in another chat: %v", err)
	}
	if len(b.calls) != 0 {
		t.Fatalf("a refused react reached the API: %v", b.calls)
	}
	if err := react(`{"messageId":"5","emoji":"👍"}`); err != nil {
		t.Fatal(err)
	}
	if c := b.last(t); c["_method"] != "setMessageReaction" || c["chat_id"] != json.Number("-100111") {
		t.Fatalf("own-chat react: %v", c)
	}
}

// A send through a channel whose API cannot be reached fails with the
// channel's error, which never carries the bot token (Telegram puts it in
// the request URL), neither in the message nor in the JSON error.
func TestMessageErrorsNeverCarryTheToken(t *testing.T) {
	srv := httptest.NewServer(nil)
	srv.Close() // connection refused
	cfg := config.Empty()
	cfg.Doc = map[string]any{"channels": map[string]any{"telegram": map[string]any{"botToken": "777:TOPSECRETBOTTOKEN", "apiBaseUrl": srv.URL}}}
	env := &tools.Env{Config: cfg, StateDir: t.TempDir()}
	for verb, args := range map[string]string{"send": `{"target":"5","message":"x"}`, "react": `{"target":"5","messageId":"1","emoji":"👍"}`} {
		_, err := tools.Invoke(context.Background(), env, tools.Call{Tool: "message", Verb: verb, Args: json.RawMessage(args)})
		if err == nil {
			t.Fatalf("%s through a closed port: no error", verb)
		}
		js, _ := json.Marshal(failure.AsError(err))
		if strings.Contains(err.Error(), "TOPSECRET") || strings.Contains(string(js), "TOPSECRET") || !strings.Contains(err.Error(), "apiBaseUrl") {
			t.Errorf("%s: %v / %s", verb, err, js)
		}
	}
}
