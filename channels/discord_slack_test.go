package channels

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/failure"
)

// reqLog records what a stand-in received.
type reqLog struct {
	method, path, auth, ctype string
	body                      []byte
	form                      url.Values
	files                     map[string][]byte
	fields                    map[string]string
}

type recorder struct {
	mu   sync.Mutex
	reqs []reqLog
}

func (rc *recorder) record(r *http.Request) reqLog {
	l := reqLog{method: r.Method, path: r.URL.RequestURI(), auth: r.Header.Get("Authorization"), ctype: r.Header.Get("Content-Type"),
		files: map[string][]byte{}, fields: map[string]string{}}
	switch {
	case strings.HasPrefix(l.ctype, "multipart/form-data"):
		if err := r.ParseMultipartForm(32 << 20); err == nil {
			for k, v := range r.MultipartForm.Value {
				l.fields[k] = v[0]
			}
			for k, fh := range r.MultipartForm.File {
				f, _ := fh[0].Open()
				b, _ := io.ReadAll(f)
				f.Close()
				l.files[k] = b
				l.fields[k+".filename"] = fh[0].Filename
			}
		}
	case strings.HasPrefix(l.ctype, "application/x-www-form-urlencoded"):
		r.ParseForm()
		l.form = r.PostForm
	default:
		l.body, _ = io.ReadAll(r.Body)
	}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, l)
	rc.mu.Unlock()
	return l
}

func (rc *recorder) last() reqLog {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.reqs[len(rc.reqs)-1]
}

// discordStandIn speaks Discord REST v10's documented shapes.
func discordStandIn(t *testing.T, limitN *atomic.Int32) (*recorder, Adapter) {
	rc := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := rc.record(r)
		w.Header().Set("Content-Type", "application/json")
		if l.auth != "Bot dtok" {
			w.WriteHeader(401)
			io.WriteString(w, `{"message": "401: Unauthorized", "code": 0}`)
			return
		}
		if limitN.Load() > 0 {
			limitN.Add(-1)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			io.WriteString(w, `{"message": "You are being rate limited.", "retry_after": 0.01, "global": false}`)
			return
		}
		switch {
		case r.URL.Path == "/users/@me":
			io.WriteString(w, `{"id":"900","username":"clawbot"}`)
		case r.URL.Path == "/users/@me/channels":
			io.WriteString(w, `{"id":"dm77","type":1}`)
		case r.URL.Path == "/channels/403/messages":
			w.WriteHeader(403)
			io.WriteString(w, `{"message": "Missing Permissions", "code": 50013}`)
		case strings.HasSuffix(r.URL.Path, "/messages") && r.Method == "POST":
			io.WriteString(w, `{"id":"m1","channel_id":"c"}`)
		case r.Method == "DELETE" || r.Method == "PUT":
			w.WriteHeader(204)
		default:
			io.WriteString(w, `{"id":"x","reactions":[{"count":2,"emoji":{"name":"👍"}}],"permission_overwrites":[],"guild_id":"g1"}`)
		}
	}))
	t.Cleanup(srv.Close)
	a, _ := Open(Account{Channel: "discord", Token: "dtok", TokenSource: "config", APIBase: srv.URL, Attempts: 3, MaxDelay: time.Second})
	return rc, a
}

func TestDiscord(t *testing.T) {
	var n atomic.Int32
	rc, a := discordStandIn(t, &n)
	ctx := context.Background()
	if r, err := a.Probe(ctx); err != nil || r["bot"].(map[string]any)["username"] != "clawbot" {
		t.Fatalf("%v %v", r, err)
	}
	r, err := a.Do(ctx, &Request{Action: "send", Target: "channel:123", Message: "hello", ReplyTo: "55"})
	if err != nil || r["messageId"] != "m1" {
		t.Fatalf("%v %v", r, err)
	}
	l := rc.last()
	var body map[string]any
	json.Unmarshal(l.body, &body)
	if l.path != "/channels/123/messages" || body["content"] != "hello" || body["message_reference"].(map[string]any)["message_id"] != "55" {
		t.Fatalf("%+v %v", l, body)
	}
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "123", Message: "b", Buttons: [][]Button{{{Text: "Open", URL: "https://x.example"}}}}); err != nil ||
		!strings.Contains(string(rc.last().body), `"components":[{"components":[{"label":"Open","style":5,"type":2,"url":"https://x.example"}],"type":1}]`) {
		t.Fatalf("%v %s", err, rc.last().body)
	}
	// A user target opens the DM channel first.
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "<@456>", Message: "dm"}); err != nil || rc.last().path != "/channels/dm77/messages" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	// Media: multipart with payload_json and files[0].
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "123", Message: "pic", Media: []Media{{Name: "a.png", ContentType: "image/png", Data: []byte("PNGDATA")}}}); err != nil {
		t.Fatal(err)
	}
	l = rc.last()
	if string(l.files["files[0]"]) != "PNGDATA" || l.fields["files[0].filename"] != "a.png" || !strings.Contains(l.fields["payload_json"], `"content":"pic"`) {
		t.Fatalf("%+v", l)
	}
	// 429 with retry_after, retried.
	n.Store(2)
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "123", Message: "again"}); err != nil || n.Load() != 0 {
		t.Fatalf("%v %d", err, n.Load())
	}
	// 403 Missing Permissions names channel, text and what to check.
	_, err = a.Do(ctx, &Request{Action: "send", Target: "403", Message: "x"})
	if err == nil || !strings.Contains(err.Error(), "discord: POST /channels/403/messages failed: Missing Permissions (code 50013) (HTTP 403)") ||
		!strings.Contains(err.Error(), "permissions") {
		t.Fatalf("%v", err)
	}
	if _, err := a.Do(ctx, &Request{Action: "react", Target: "123", MessageID: "m1", Emoji: "👍"}); err != nil ||
		rc.last().method != "PUT" || rc.last().path != "/channels/123/messages/m1/reactions/%F0%9F%91%8D/@me" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	if r, err := a.Do(ctx, &Request{Action: "reactions", Target: "123", MessageID: "m1"}); err != nil || !strings.Contains(string(r["reactions"].(json.RawMessage)), "👍") {
		t.Fatalf("%v %v", r, err)
	}
	if _, err := a.Do(ctx, &Request{Action: "read", Target: "123", Limit: 5, Before: "m9"}); err != nil || rc.last().path != "/channels/123/messages?before=m9&limit=5" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	if _, err := a.Do(ctx, &Request{Action: "pin", Target: "123", MessageID: "m1"}); err != nil || rc.last().path != "/channels/123/pins/m1" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	if _, err := a.Do(ctx, &Request{Action: "poll", Target: "123", PollQuestion: "Q", PollOptions: []string{"a", "b"}}); err != nil ||
		!strings.Contains(string(rc.last().body), `"question":{"text":"Q"}`) {
		t.Fatalf("%v %s", err, rc.last().body)
	}
	if _, err := a.Do(ctx, &Request{Action: "member-info", UserID: "u"}); err == nil || !strings.Contains(err.Error(), "guildId") {
		t.Fatalf("%v", err)
	}
	if _, err := a.Do(ctx, &Request{Action: "thread-list", GuildID: "g1"}); err != nil || rc.last().path != "/guilds/g1/threads/active" {
		t.Fatalf("%v %+v", err, rc.last())
	}
}

// slackStandIn speaks the Web API's documented shapes: form posts, HTTP
// 200 {ok:false,error}, 429 Retry-After, the external upload flow.
func slackStandIn(t *testing.T, limitN *atomic.Int32) (*recorder, Adapter) {
	rc := &recorder{}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := rc.record(r)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/upload/F1" {
			io.WriteString(w, "OK - 7")
			return
		}
		if l.auth != "Bearer xoxb-1" {
			io.WriteString(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		if limitN.Load() > 0 {
			limitN.Add(-1)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
			return
		}
		w.Header().Set("X-OAuth-Scopes", "chat:write,files:write")
		switch r.URL.Path {
		case "/auth.test":
			io.WriteString(w, `{"ok":true,"user":"claw","user_id":"U1","team":"T","bot_id":"B1"}`)
		case "/chat.postMessage":
			if l.form.Get("channel") == "CNOPE" {
				io.WriteString(w, `{"ok":false,"error":"missing_scope","needed":"chat:write.public","provided":"chat:write"}`)
				return
			}
			io.WriteString(w, `{"ok":true,"channel":"`+l.form.Get("channel")+`","ts":"1700000000.000100"}`)
		case "/conversations.open":
			io.WriteString(w, `{"ok":true,"channel":{"id":"D9"}}`)
		case "/files.getUploadURLExternal":
			io.WriteString(w, `{"ok":true,"upload_url":"`+srv.URL+`/upload/F1","file_id":"F1"}`)
		default:
			io.WriteString(w, `{"ok":true,"messages":[],"channel":{"id":"C1"},"items":[]}`)
		}
	}))
	t.Cleanup(srv.Close)
	a, _ := Open(Account{Channel: "slack", Token: "xoxb-1", TokenSource: "config", APIBase: srv.URL, Attempts: 3, MaxDelay: time.Second})
	return rc, a
}

func TestSlack(t *testing.T) {
	var n atomic.Int32
	rc, a := slackStandIn(t, &n)
	ctx := context.Background()
	if r, err := a.Probe(ctx); err != nil || r["bot"].(map[string]any)["id"] != "U1" {
		t.Fatalf("%v %v", r, err)
	}
	r, err := a.Do(ctx, &Request{Action: "send", Target: "channel:C1", Message: "hi", ThreadID: "1699.1"})
	if err != nil || r["messageId"] != "1700000000.000100" || rc.last().form.Get("thread_ts") != "1699.1" || rc.last().form.Get("text") != "hi" {
		t.Fatalf("%v %v %+v", r, err, rc.last())
	}
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "C1", Message: "b", Buttons: [][]Button{{{Text: "Yes", Data: "y"}}}}); err != nil ||
		!strings.Contains(rc.last().form.Get("blocks"), `{"elements":[{"action_id":"openclaw_0_0","text":{"text":"Yes","type":"plain_text"},"type":"button","value":"y"}],"type":"actions"}`) {
		t.Fatalf("%v %v", err, rc.last().form.Get("blocks"))
	}
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "user:U7", Message: "dm"}); err != nil || rc.last().form.Get("channel") != "D9" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	// Media: getUploadURLExternal, multipart to the upload URL, complete.
	rc.reqs = nil
	r, err = a.Do(ctx, &Request{Action: "send", Target: "C1", Media: []Media{{Name: "n.txt", ContentType: "text/plain", Data: []byte("payload")}}})
	if err != nil || r["messageId"] != "F1" || len(rc.reqs) != 3 {
		t.Fatalf("%v %v %d", r, err, len(rc.reqs))
	}
	if rc.reqs[0].form.Get("length") != "7" || string(rc.reqs[1].files["file"]) != "payload" || rc.reqs[2].path != "/files.completeUploadExternal" ||
		rc.reqs[2].form.Get("channel_id") != "C1" || !strings.Contains(rc.reqs[2].form.Get("files"), `"id":"F1"`) {
		t.Fatalf("%+v", rc.reqs)
	}
	n.Store(2)
	if _, err := a.Do(ctx, &Request{Action: "send", Target: "C1", Message: "x"}); err != nil || n.Load() != 0 {
		t.Fatalf("%v %d", err, n.Load())
	}
	_, err = a.Do(ctx, &Request{Action: "send", Target: "CNOPE", Message: "x"})
	if err == nil || !strings.Contains(err.Error(), "slack: chat.postMessage failed: missing_scope (needed: chat:write.public; provided: chat:write)") {
		t.Fatalf("%v", err)
	}
	if r, err := a.Do(ctx, &Request{Action: "permissions"}); err != nil || len(r["scopes"].([]string)) != 2 {
		t.Fatalf("%v %v", r, err)
	}
	if _, err := a.Do(ctx, &Request{Action: "react", Target: "C1", MessageID: "1.2", Emoji: ":thumbsup:"}); err != nil || rc.last().form.Get("name") != "thumbsup" {
		t.Fatalf("%v %+v", err, rc.last())
	}
	_, err = a.Do(ctx, &Request{Action: "poll", Target: "C1"})
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.ExitCode() != 2 || !strings.Contains(fe.Message, "not supported on slack") {
		t.Fatalf("%v", err)
	}
}

func TestTargets(t *testing.T) {
	for _, tc := range []struct{ in, chat, topic string }{{"-1001:topic:7", "-1001", "7"}, {"telegram:@chan", "@chan", ""}, {"tg:123", "123", ""}} {
		if c, tp := ParseTelegramTarget(tc.in); c != tc.chat || tp != tc.topic {
			t.Errorf("%s: %s %s", tc.in, c, tp)
		}
	}
	for _, tc := range []struct{ in, kind, id string }{{"channel:1", "channel", "1"}, {"user:2", "user", "2"}, {"<@!3>", "user", "3"}, {"discord:4", "channel", "4"}, {"<#5>", "channel", "5"}, {" Discord:channel:6", "channel", "6"}} {
		if k, id := ParseDiscordTarget(tc.in); k != tc.kind || id != tc.id {
			t.Errorf("%s: %s %s", tc.in, k, id)
		}
	}
	for _, tc := range []struct{ in, kind, id string }{{"channel:C1", "channel", "C1"}, {"user:U1", "user", "U1"}, {"<@U2>", "user", "U2"}, {"C3", "channel", "C3"}, {"slack:#C4", "channel", "C4"}} {
		if k, id := ParseSlackTarget(tc.in); k != tc.kind || id != tc.id {
			t.Errorf("%s: %s %s", tc.in, k, id)
		}
	}
}
