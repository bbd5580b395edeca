package channels

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// tgStandIn speaks the Bot API's documented shapes: POST /bot<token>/<method>,
// JSON or multipart params, {ok,result} / {ok:false,error_code,description,parameters}.
type tgStandIn struct {
	t     *testing.T
	token string
	mu    sync.Mutex
	calls []tgCall
	// limitN answers the first limitN calls 429 with retry_after limitAfter.
	limitN     int
	limitAfter int
	nextID     int
}

type tgCall struct {
	method string
	params map[string]any
	files  map[string][]byte // multipart field -> bytes
	ctypes map[string]string
}

func (s *tgStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	prefix := "/bot" + s.token + "/"
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, prefix) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	c := tgCall{method: strings.TrimPrefix(r.URL.Path, prefix), params: map[string]any{}, files: map[string][]byte{}, ctypes: map[string]string{}}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			s.t.Errorf("multipart: %v", err)
		}
		for k, v := range r.MultipartForm.Value {
			c.params[k] = v[0]
		}
		for k, fh := range r.MultipartForm.File {
			f, _ := fh[0].Open()
			b, _ := io.ReadAll(f)
			f.Close()
			c.files[k] = b
			c.ctypes[k] = fh[0].Header.Get("Content-Type") + ";" + fh[0].Filename
		}
	} else if err := json.NewDecoder(r.Body).Decode(&c.params); err != nil {
		s.t.Errorf("json body: %v", err)
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	limited, after := s.limitN > 0, s.limitAfter
	if limited {
		s.limitN--
	}
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	if limited {
		w.WriteHeader(429)
		json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1",
			"parameters": map[string]any{"retry_after": after}})
		return
	}
	chat := c.params["chat_id"]
	switch c.method {
	case "getMe":
		io.WriteString(w, `{"ok":true,"result":{"id":42,"is_bot":true,"first_name":"Claw","username":"claw_bot"}}`)
	case "sendMessage", "sendPhoto", "sendDocument", "sendPoll", "sendVideo", "sendAudio", "sendAnimation":
		if chat == "@readonly" || chat == float64(-1009) || chat == "-1009" {
			w.WriteHeader(403)
			io.WriteString(w, `{"ok":false,"error_code":403,"description":"Forbidden: bot is not a member of the channel chat"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_id": id, "chat": map[string]any{"id": chat},
			"poll": map[string]any{"id": "p1"}}})
	case "createForumTopic":
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_thread_id": 77, "name": c.params["name"]}})
	case "getChatMember":
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"status": "administrator", "user": map[string]any{"id": c.params["user_id"]}}})
	case "getChat":
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"id": chat, "type": "supergroup", "title": "T"}})
	default:
		io.WriteString(w, `{"ok":true,"result":true}`)
	}
}

func (s *tgStandIn) limit(n, after int) {
	s.mu.Lock()
	s.limitN, s.limitAfter = n, after
	s.mu.Unlock()
}

func (s *tgStandIn) last() tgCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[len(s.calls)-1]
}

func newTG(t *testing.T) (*tgStandIn, Adapter) {
	s := &tgStandIn{t: t, token: "123:ABC"}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	a, err := Open(Account{Channel: "telegram", ID: "default", Token: s.token, TokenSource: "config", APIBase: srv.URL, Attempts: 3, MaxDelay: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

func TestTelegramSendTextTopicReply(t *testing.T) {
	s, a := newTG(t)
	res, err := a.Do(context.Background(), &Request{Action: "send", Target: "telegram:-1001234567890:topic:5", Message: "hi", ReplyTo: "9", Silent: true})
	if err != nil {
		t.Fatal(err)
	}
	c := s.last()
	if c.method != "sendMessage" || c.params["text"] != "hi" || c.params["chat_id"] != float64(-1001234567890) || c.params["message_thread_id"] != float64(5) ||
		c.params["disable_notification"] != true {
		t.Fatalf("call %+v", c)
	}
	if rp, _ := c.params["reply_parameters"].(map[string]any); rp["message_id"] != float64(9) {
		t.Fatalf("reply_parameters %v", c.params["reply_parameters"])
	}
	if res["messageId"] != "1" || res["ok"] != true || res["channel"] != "telegram" {
		t.Fatalf("result %v", res)
	}
	if _, err := a.Do(context.Background(), &Request{Action: "send", Target: "@claw_news", Message: "x"}); err != nil || s.last().params["chat_id"] != "@claw_news" {
		t.Fatalf("username target: %v %v", err, s.last().params)
	}
	// Buttons: an inline keyboard, one row per row.
	if _, err := a.Do(context.Background(), &Request{Action: "send", Target: "1", Message: "pick",
		Buttons: [][]Button{{{Text: "Docs", URL: "https://docs.example"}}, {{Text: "Yes", Data: "y"}, {Text: "No"}}}}); err != nil {
		t.Fatal(err)
	}
	kb, _ := json.Marshal(s.last().params["reply_markup"])
	if string(kb) != `{"inline_keyboard":[[{"text":"Docs","url":"https://docs.example"}],[{"callback_data":"y","text":"Yes"},{"callback_data":"No","text":"No"}]]}` {
		t.Fatalf("reply_markup %s", kb)
	}
}

func TestTelegramSendMediaMultipart(t *testing.T) {
	s, a := newTG(t)
	png := []byte("\x89PNG\r\n\x1a\nfakeimage")
	res, err := a.Do(context.Background(), &Request{Action: "send", Target: "-100200", Message: "look",
		Media: []Media{{Name: "a.png", ContentType: "image/png", Data: png}, {Name: "r.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.calls) != 2 {
		t.Fatalf("%d calls", len(s.calls))
	}
	p, d := s.calls[0], s.calls[1]
	if p.method != "sendPhoto" || string(p.files["photo"]) != string(png) || p.params["caption"] != "look" || p.params["chat_id"] != "-100200" ||
		p.ctypes["photo"] != "image/png;a.png" {
		t.Fatalf("photo %+v", p)
	}
	if d.method != "sendDocument" || string(d.files["document"]) != "%PDF-1.4" || d.params["caption"] != nil {
		t.Fatalf("document %+v", d)
	}
	if res["messageId"] != "2" || len(res["messageIds"].([]string)) != 2 {
		t.Fatalf("result %v", res)
	}
	if _, err := a.Do(context.Background(), &Request{Action: "send", Target: "1", ForceDocument: true,
		Media: []Media{{Name: "a.png", ContentType: "image/png", Data: png}}}); err != nil || s.last().method != "sendDocument" || string(s.last().files["document"]) != string(png) {
		t.Fatalf("forceDocument: %v %+v", err, s.last())
	}
}

func TestTelegramRetryAfter(t *testing.T) {
	s, a := newTG(t)
	s.limit(2, 0)
	res, err := a.Do(context.Background(), &Request{Action: "send", Target: "1", Message: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.calls) != 3 || res["messageId"] != "3" {
		t.Fatalf("calls %d result %v", len(s.calls), res)
	}
	// Beyond the attempts: an error naming the channel and the API text.
	s.limit(5, 0)
	_, err = a.Do(context.Background(), &Request{Action: "send", Target: "1", Message: "x"})
	if err == nil || !strings.Contains(err.Error(), "telegram: rate limited") || !strings.Contains(err.Error(), "Too Many Requests") ||
		!strings.Contains(err.Error(), "channels.telegram.retry") {
		t.Fatalf("err %v", err)
	}
	// A wait longer than maxDelay fails at once; a cancelled context stops the wait.
	s.limit(1, 3600)
	if _, err = a.Do(context.Background(), &Request{Action: "send", Target: "1", Message: "x"}); err == nil || !strings.Contains(err.Error(), "maxDelayMs") {
		t.Fatalf("err %v", err)
	}
	s.limit(1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = a.Do(ctx, &Request{Action: "send", Target: "1", Message: "x"}); err == nil {
		t.Fatal("cancelled context sent")
	}
}

func TestTelegramForbiddenAndToken(t *testing.T) {
	_, a := newTG(t)
	_, err := a.Do(context.Background(), &Request{Action: "send", Target: "@readonly", Message: "x"})
	var fe *failure.Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "telegram: sendMessage failed: Forbidden: bot is not a member") ||
		!strings.Contains(fe.Message, "permissions") {
		t.Fatalf("err %v", err)
	}
	s2 := &tgStandIn{t: t, token: "good"}
	srv := httptest.NewServer(s2)
	defer srv.Close()
	bad, _ := Open(Account{Channel: "telegram", Token: "999:SECRET", TokenSource: "env:TELEGRAM_BOT_TOKEN", APIBase: srv.URL, Attempts: 1})
	_, err = bad.Probe(context.Background())
	if !errors.As(err, &fe) || fe.Code != failure.CodeAuth || strings.Contains(fe.Message, "SECRET") || !strings.Contains(fe.Message, "env:TELEGRAM_BOT_TOKEN") {
		t.Fatalf("err %v", err)
	}
}

func TestTelegramActions(t *testing.T) {
	s, a := newTG(t)
	ctx := context.Background()
	if r, err := a.Probe(ctx); err != nil || r["bot"].(map[string]any)["username"] != "claw_bot" {
		t.Fatalf("probe %v %v", r, err)
	}
	if _, err := a.Do(ctx, &Request{Action: "react", Target: "5", MessageID: "10", Emoji: "👍"}); err != nil {
		t.Fatal(err)
	}
	if c := s.last(); c.method != "setMessageReaction" || c.params["reaction"].([]any)[0].(map[string]any)["emoji"] != "👍" {
		t.Fatalf("%+v", c)
	}
	if _, err := a.Do(ctx, &Request{Action: "poll", Target: "5", PollQuestion: "Lunch?", PollOptions: []string{"a", "b"}, PollMulti: true}); err != nil {
		t.Fatal(err)
	}
	if c := s.last(); c.method != "sendPoll" || c.params["question"] != "Lunch?" || c.params["allows_multiple_answers"] != true {
		t.Fatalf("%+v", c)
	}
	for _, tc := range []struct{ action, method string }{{"edit", "editMessageText"}, {"delete", "deleteMessage"}, {"pin", "pinChatMessage"}, {"unpin", "unpinChatMessage"}} {
		if _, err := a.Do(ctx, &Request{Action: tc.action, Target: "5", MessageID: "10", Message: "new"}); err != nil {
			t.Fatal(err)
		}
		if c := s.last(); c.method != tc.method || c.params["message_id"] != float64(10) {
			t.Fatalf("%s: %+v", tc.action, c)
		}
	}
	r, err := a.Do(ctx, &Request{Action: "thread-create", Target: "-1005", ThreadName: "ideas"})
	if err != nil || r["threadId"] != "77" || r["target"] != "-1005:topic:77" {
		t.Fatalf("%v %v", r, err)
	}
	if r, err = a.Do(ctx, &Request{Action: "permissions", Target: "-1005"}); err != nil || r["status"] != "administrator" || s.last().params["user_id"] != float64(42) {
		t.Fatalf("%v %v", r, err)
	}
	_, err = a.Do(ctx, &Request{Action: "read", Target: "5"})
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.ExitCode() != 2 || !strings.Contains(fe.Message, "not supported on telegram") {
		t.Fatalf("read: %v", err)
	}
	if _, err = a.Do(ctx, &Request{Action: "send", Message: "x"}); err == nil || !strings.Contains(err.Error(), "requires a target") {
		t.Fatalf("no target: %v", err)
	}
}
