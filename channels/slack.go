package channels

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Slack Web API (https://api.slack.com/web): POST <base>/<method> with a
// form body and Authorization: Bearer xoxb-…; answers {ok, error, needed,
// provided} with HTTP 200, 429 with Retry-After. Files go through
// files.getUploadURLExternal, a multipart upload to the URL it answers,
// and files.completeUploadExternal.

var slackActions = []string{"send", "react", "reactions", "read", "edit", "delete", "pin", "unpin", "list-pins",
	"thread-reply", "search", "member-info", "channel-info", "channel-list", "permissions"}

type slack struct{ api }

func newSlack(a Account) *slack {
	s := &slack{api{acct: a}}
	s.auth = func(h http.Header) { h.Set("Authorization", "Bearer "+a.Token) }
	return s
}

func (s *slack) Channel() string             { return "slack" }
func (s *slack) Supports(action string) bool { return supports(slackActions, action) }

// ParseSlackTarget reads channel:<id>, user:<id>, <@U…>, #<id> and a bare
// id (a channel), optionally slack:-prefixed.
func ParseSlackTarget(t string) (kind, id string) {
	kind, id, rest := parseIDTarget(t, "slack:")
	switch {
	case kind != "":
		return kind, id
	case strings.HasPrefix(rest, "#"):
		return "channel", rest[1:]
	}
	return "channel", rest
}

// method calls one Web API method with a form body.
func (s *slack) method(ctx context.Context, name string, form url.Values) (gjson.Result, *response, error) {
	resp, err := s.call(ctx, http.MethodPost, s.acct.APIBase+"/"+name, formBody(form))
	if err != nil {
		return gjson.Result{}, nil, err
	}
	j := resp.json()
	if resp.status != http.StatusOK || !j.Get("ok").Bool() {
		return gjson.Result{}, resp, s.apiError(name, resp)
	}
	return j, resp, nil
}

func (s *slack) channelID(ctx context.Context, r *Request) (string, error) {
	kind, id := ParseSlackTarget(r.Target)
	if id == "" {
		return "", need("slack", r.Action, "a target (channel:<id>, user:<id>, or a channel id)")
	}
	if kind == "user" {
		res, _, err := s.method(ctx, "conversations.open", url.Values{"users": {id}})
		if err != nil {
			return "", err
		}
		return res.Get("channel.id").String(), nil
	}
	return id, nil
}

func (s *slack) Probe(ctx context.Context) (map[string]any, error) {
	res, _, err := s.method(ctx, "auth.test", url.Values{})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "bot": map[string]any{"id": res.Get("user_id").String(), "username": res.Get("user").String(),
		"team": res.Get("team").String(), "botId": res.Get("bot_id").String()}}, nil
}

func (s *slack) Do(ctx context.Context, r *Request) (map[string]any, error) {
	if !s.Supports(r.Action) {
		return nil, Unsupported("slack", r.Action)
	}
	switch r.Action {
	case "search":
		if r.Query == "" {
			return nil, need("slack", "search", "query")
		}
		f := url.Values{"query": {r.Query}}
		if r.Limit > 0 {
			f.Set("count", strconv.Itoa(r.Limit))
		}
		res, _, err := s.method(ctx, "search.messages", f)
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"total": res.Get("messages.total").Int(), "messages": raw(res.Get("messages.matches"))}), nil
	case "member-info":
		if r.UserID == "" {
			return nil, need("slack", "member-info", "userId")
		}
		res, _, err := s.method(ctx, "users.info", url.Values{"user": {r.UserID}})
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"member": raw(res.Get("user"))}), nil
	case "channel-list":
		f := url.Values{"types": {"public_channel,private_channel"}}
		if r.Limit > 0 {
			f.Set("limit", strconv.Itoa(r.Limit))
		}
		res, _, err := s.method(ctx, "conversations.list", f)
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"channels": raw(res.Get("channels"))}), nil
	case "permissions":
		// Slack reports a token's scopes in X-OAuth-Scopes on every answer.
		res, resp, err := s.method(ctx, "auth.test", url.Values{})
		if err != nil {
			return nil, err
		}
		var scopes []string
		for _, sc := range strings.Split(resp.header.Get("X-OAuth-Scopes"), ",") {
			if sc = strings.TrimSpace(sc); sc != "" {
				scopes = append(scopes, sc)
			}
		}
		return okResult("slack", r.Action, map[string]any{"scopes": scopes, "botId": res.Get("bot_id").String()}), nil
	}
	ch, err := s.channelID(ctx, r)
	if err != nil {
		return nil, err
	}
	ts := func() (string, error) {
		if r.MessageID == "" {
			return "", need("slack", r.Action, "messageId (the message ts)")
		}
		return r.MessageID, nil
	}
	switch r.Action {
	case "send", "thread-reply":
		thread := r.ThreadID
		if thread == "" && r.Action == "thread-reply" {
			thread = r.ReplyTo
		}
		if r.Action == "thread-reply" && thread == "" {
			return nil, need("slack", r.Action, "threadId (the parent message ts)")
		}
		if thread == "" {
			thread = r.ReplyTo // Slack replies are thread replies
		}
		return s.send(ctx, r, ch, thread)
	case "react":
		t, err := ts()
		if err != nil {
			return nil, err
		}
		if r.Emoji == "" {
			return nil, need("slack", "react", "emoji (a name such as thumbsup)")
		}
		name := "reactions.add"
		if r.Remove {
			name = "reactions.remove"
		}
		if _, _, err := s.method(ctx, name, url.Values{"channel": {ch}, "timestamp": {t}, "name": {strings.Trim(r.Emoji, ":")}}); err != nil {
			return nil, err
		}
		return okResult("slack", "react", map[string]any{"messageId": t, "emoji": r.Emoji, "removed": r.Remove}), nil
	case "reactions":
		t, err := ts()
		if err != nil {
			return nil, err
		}
		res, _, err := s.method(ctx, "reactions.get", url.Values{"channel": {ch}, "timestamp": {t}, "full": {"true"}})
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"messageId": t, "reactions": raw(res.Get("message.reactions"))}), nil
	case "read":
		f := url.Values{"channel": {ch}}
		if r.Limit > 0 {
			f.Set("limit", strconv.Itoa(r.Limit))
		}
		if r.Before != "" {
			f.Set("latest", r.Before)
		}
		if r.After != "" {
			f.Set("oldest", r.After)
		}
		name := "conversations.history"
		if r.ThreadID != "" {
			name = "conversations.replies"
			f.Set("ts", r.ThreadID)
		}
		res, _, err := s.method(ctx, name, f)
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"channelId": ch, "messages": raw(res.Get("messages")),
			"hasMore": res.Get("has_more").Bool()}), nil
	case "edit":
		t, err := ts()
		if err != nil {
			return nil, err
		}
		if r.Message == "" {
			return nil, need("slack", "edit", "message (the new text)")
		}
		if _, _, err := s.method(ctx, "chat.update", url.Values{"channel": {ch}, "ts": {t}, "text": {r.Message}}); err != nil {
			return nil, err
		}
		return okResult("slack", "edit", map[string]any{"messageId": t}), nil
	case "delete":
		t, err := ts()
		if err != nil {
			return nil, err
		}
		if _, _, err := s.method(ctx, "chat.delete", url.Values{"channel": {ch}, "ts": {t}}); err != nil {
			return nil, err
		}
		return okResult("slack", "delete", map[string]any{"messageId": t}), nil
	case "pin", "unpin":
		t, err := ts()
		if err != nil {
			return nil, err
		}
		name := map[string]string{"pin": "pins.add", "unpin": "pins.remove"}[r.Action]
		if _, _, err := s.method(ctx, name, url.Values{"channel": {ch}, "timestamp": {t}}); err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"messageId": t}), nil
	case "list-pins":
		res, _, err := s.method(ctx, "pins.list", url.Values{"channel": {ch}})
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"channelId": ch, "pins": raw(res.Get("items"))}), nil
	case "channel-info":
		res, _, err := s.method(ctx, "conversations.info", url.Values{"channel": {ch}})
		if err != nil {
			return nil, err
		}
		return okResult("slack", r.Action, map[string]any{"channel": raw(res.Get("channel"))}), nil
	}
	return nil, Unsupported("slack", r.Action)
}

// send posts the text (chat.postMessage; its ts is the message id) and
// uploads each attachment into the same conversation (and thread).
func (s *slack) send(ctx context.Context, r *Request, ch, thread string) (map[string]any, error) {
	text := r.Message
	var files []Media
	for _, m := range r.Media {
		if m.Data == nil {
			if text != "" {
				text += "\n"
			}
			text += m.URL
			continue
		}
		files = append(files, m)
	}
	if strings.TrimSpace(text) == "" && len(files) == 0 {
		return nil, need("slack", r.Action, "message or media")
	}
	var ids []string
	extra := map[string]any{"channelId": ch}
	if thread != "" {
		extra["threadId"] = thread
	}
	if text != "" {
		f := url.Values{"channel": {ch}, "text": {text}}
		if thread != "" {
			f.Set("thread_ts", thread)
		}
		if len(r.Buttons) > 0 {
			blocks := []map[string]any{{"type": "section", "text": map[string]string{"type": "mrkdwn", "text": text}}}
			for i, row := range r.Buttons {
				var els []map[string]any
				for j, b := range row {
					e := map[string]any{"type": "button", "text": map[string]string{"type": "plain_text", "text": b.Text},
						"action_id": fmt.Sprintf("openclaw_%d_%d", i, j)}
					if b.URL != "" {
						e["url"] = b.URL
					} else {
						e["value"] = firstNonEmptyStr(b.Data, b.Text)
					}
					els = append(els, e)
				}
				blocks = append(blocks, map[string]any{"type": "actions", "elements": els})
			}
			bj, err := json.Marshal(blocks)
			if err != nil {
				return nil, err
			}
			f.Set("blocks", string(bj))
		}
		res, _, err := s.method(ctx, "chat.postMessage", f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, res.Get("ts").String())
		extra["channelId"] = res.Get("channel").String()
	}
	var fileIDs []string
	for _, m := range files {
		id, err := s.upload(ctx, m, ch, thread)
		if err != nil {
			if len(ids)+len(fileIDs) > 0 {
				return nil, partial(err, append(ids, fileIDs...))
			}
			return nil, err
		}
		fileIDs = append(fileIDs, id)
	}
	if len(fileIDs) > 0 {
		extra["fileIds"] = fileIDs
		if len(ids) == 0 {
			ids = fileIDs
		}
	}
	return sendResult("slack", r.Target, ids, extra), nil
}

// upload is Slack's external upload: get a URL, POST the bytes there as
// multipart, complete it into the conversation.
func (s *slack) upload(ctx context.Context, m Media, ch, thread string) (string, error) {
	name := m.Name
	if name == "" {
		name = "file"
	}
	res, _, err := s.method(ctx, "files.getUploadURLExternal", url.Values{"filename": {name}, "length": {strconv.Itoa(len(m.Data))}})
	if err != nil {
		return "", err
	}
	uploadURL, fileID := res.Get("upload_url").String(), res.Get("file_id").String()
	if uploadURL == "" || fileID == "" {
		return "", s.apiError("files.getUploadURLExternal (no upload_url)", &response{status: 200, body: []byte(res.Raw)})
	}
	b, err := multipartBody(nil, []part{{field: "file", media: m}})
	if err != nil {
		return "", err
	}
	resp, err := s.call(ctx, http.MethodPost, uploadURL, b)
	if err != nil {
		return "", err
	}
	if resp.status < 200 || resp.status > 299 {
		return "", s.apiError("file upload", resp)
	}
	filesJSON, err := json.Marshal([]map[string]string{{"id": fileID, "title": name}})
	if err != nil {
		return "", err
	}
	f := url.Values{"files": {string(filesJSON)}, "channel_id": {ch}}
	if thread != "" {
		f.Set("thread_ts", thread)
	}
	if _, _, err := s.method(ctx, "files.completeUploadExternal", f); err != nil {
		return "", err
	}
	return fileID, nil
}
