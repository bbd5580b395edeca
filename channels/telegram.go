package channels

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Telegram Bot API (https://core.telegram.org/bots/api): POST
// <base>/bot<token>/<method>, JSON or multipart bodies, answers
// {ok, result} or {ok:false, error_code, description, parameters}.

var telegramActions = []string{"send", "poll", "react", "edit", "delete", "pin", "unpin", "thread-create", "thread-reply",
	"member-info", "channel-info", "permissions"}

type telegram struct{ api }

func newTelegram(a Account) *telegram { return &telegram{api{acct: a}} }

func (t *telegram) Channel() string             { return "telegram" }
func (t *telegram) Supports(action string) bool { return supports(telegramActions, action) }

// telegramTarget is a parsed Telegram destination: a chat id (-100…), an
// @username, optionally with :topic:<id> (a forum topic).
type telegramTarget struct {
	chat  string
	topic string
}

// ParseTelegramTarget reads telegram:<chat>, tg:<chat>, <chat>:topic:<n>
// and the chat forms (numeric id, @username).
func ParseTelegramTarget(s string) (chat, topic string) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"telegram:", "tg:"} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			s = s[len(p):]
		}
	}
	if i := strings.Index(s, ":topic:"); i > 0 {
		return s[:i], s[i+len(":topic:"):]
	}
	return s, ""
}

func (t *telegram) target(r *Request) (telegramTarget, error) {
	chat, topic := ParseTelegramTarget(r.Target)
	if chat == "" {
		return telegramTarget{}, need("telegram", r.Action, "a target (chat id such as -1001234567890, @username, or <chatId>:topic:<id>)")
	}
	if r.ThreadID != "" {
		topic = r.ThreadID
	}
	return telegramTarget{chat: chat, topic: topic}, nil
}

// method calls one Bot API method and returns its result.
func (t *telegram) method(ctx context.Context, name string, b *body) (gjson.Result, error) {
	resp, err := t.call(ctx, http.MethodPost, t.acct.APIBase+"/bot"+t.acct.Token+"/"+name, b)
	if err != nil {
		return gjson.Result{}, err
	}
	j := resp.json()
	if resp.status != http.StatusOK || !j.Get("ok").Bool() {
		return gjson.Result{}, t.apiError(name, resp)
	}
	return j.Get("result"), nil
}

func (t *telegram) jsonMethod(ctx context.Context, name string, params map[string]any) (gjson.Result, error) {
	b, err := jsonBody(params)
	if err != nil {
		return gjson.Result{}, err
	}
	return t.method(ctx, name, b)
}

// chatID is a numeric chat id as a number, an @username as a string.
func chatID(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

func intOrString(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

func (t *telegram) Probe(ctx context.Context) (map[string]any, error) {
	res, err := t.jsonMethod(ctx, "getMe", map[string]any{})
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "bot": map[string]any{"id": res.Get("id").Int(), "username": res.Get("username").String(),
		"name": res.Get("first_name").String()}}, nil
}

func (t *telegram) Do(ctx context.Context, r *Request) (map[string]any, error) {
	if !t.Supports(r.Action) {
		return nil, Unsupported("telegram", r.Action)
	}
	tg, err := t.target(r)
	if err != nil {
		return nil, err
	}
	base := map[string]any{"chat_id": chatID(tg.chat)}
	needMsg := func() (any, error) {
		if r.MessageID == "" {
			return nil, need("telegram", r.Action, "messageId")
		}
		return intOrString(r.MessageID), nil
	}
	switch r.Action {
	case "send", "thread-reply":
		if r.Action == "thread-reply" && tg.topic == "" {
			return nil, need("telegram", r.Action, "threadId (the forum topic id)")
		}
		return t.send(ctx, r, tg)
	case "poll":
		if r.PollQuestion == "" || len(r.PollOptions) < 2 {
			return nil, need("telegram", "poll", "pollQuestion and 2-12 pollOption values")
		}
		opts := make([]map[string]string, len(r.PollOptions))
		for i, o := range r.PollOptions {
			opts[i] = map[string]string{"text": o}
		}
		base["question"], base["options"], base["is_anonymous"] = r.PollQuestion, opts, false
		if r.PollMulti {
			base["allows_multiple_answers"] = true
		}
		if tg.topic != "" {
			base["message_thread_id"] = intOrString(tg.topic)
		}
		res, err := t.jsonMethod(ctx, "sendPoll", base)
		if err != nil {
			return nil, err
		}
		return sendResult("telegram", r.Target, []string{idString(res.Get("message_id").Value())},
			map[string]any{"chatId": idString(res.Get("chat.id").Value()), "pollId": res.Get("poll.id").String()}), nil
	case "react":
		mid, err := needMsg()
		if err != nil {
			return nil, err
		}
		base["message_id"] = mid
		reaction := []map[string]string{}
		if !r.Remove {
			if r.Emoji == "" {
				return nil, need("telegram", "react", "emoji (or remove)")
			}
			reaction = append(reaction, map[string]string{"type": "emoji", "emoji": r.Emoji})
		}
		base["reaction"] = reaction
		if _, err := t.jsonMethod(ctx, "setMessageReaction", base); err != nil {
			return nil, err
		}
		return okResult("telegram", "react", map[string]any{"messageId": r.MessageID, "emoji": r.Emoji, "removed": r.Remove}), nil
	case "edit":
		mid, err := needMsg()
		if err != nil {
			return nil, err
		}
		if r.Message == "" {
			return nil, need("telegram", "edit", "message (the new text)")
		}
		base["message_id"], base["text"] = mid, r.Message
		if _, err := t.jsonMethod(ctx, "editMessageText", base); err != nil {
			return nil, err
		}
		return okResult("telegram", "edit", map[string]any{"messageId": r.MessageID}), nil
	case "delete", "pin", "unpin":
		mid, err := needMsg()
		if err != nil {
			return nil, err
		}
		base["message_id"] = mid
		name := map[string]string{"delete": "deleteMessage", "pin": "pinChatMessage", "unpin": "unpinChatMessage"}[r.Action]
		if r.Action == "pin" && r.Silent {
			base["disable_notification"] = true
		}
		if _, err := t.jsonMethod(ctx, name, base); err != nil {
			return nil, err
		}
		return okResult("telegram", r.Action, map[string]any{"messageId": r.MessageID}), nil
	case "thread-create":
		name := r.ThreadName
		if name == "" {
			name = r.Message
		}
		if name == "" {
			return nil, need("telegram", "thread-create", "threadName")
		}
		base["name"] = name
		res, err := t.jsonMethod(ctx, "createForumTopic", base)
		if err != nil {
			return nil, err
		}
		id := idString(res.Get("message_thread_id").Value())
		return okResult("telegram", "thread-create", map[string]any{"threadId": id, "name": res.Get("name").String(),
			"target": tg.chat + ":topic:" + id}), nil
	case "member-info":
		if r.UserID == "" {
			return nil, need("telegram", "member-info", "userId")
		}
		base["user_id"] = intOrString(r.UserID)
		res, err := t.jsonMethod(ctx, "getChatMember", base)
		if err != nil {
			return nil, err
		}
		return okResult("telegram", "member-info", map[string]any{"member": json.RawMessage(res.Raw)}), nil
	case "channel-info":
		res, err := t.jsonMethod(ctx, "getChat", base)
		if err != nil {
			return nil, err
		}
		return okResult("telegram", "channel-info", map[string]any{"chat": json.RawMessage(res.Raw)}), nil
	case "permissions":
		me, err := t.jsonMethod(ctx, "getMe", map[string]any{})
		if err != nil {
			return nil, err
		}
		base["user_id"] = me.Get("id").Int()
		res, err := t.jsonMethod(ctx, "getChatMember", base)
		if err != nil {
			return nil, err
		}
		return okResult("telegram", "permissions", map[string]any{"status": res.Get("status").String(),
			"member": json.RawMessage(res.Raw)}), nil
	}
	return nil, Unsupported("telegram", r.Action)
}

// telegramMediaMethod picks sendPhoto/sendVideo/sendAudio/sendDocument
// (and its field) by content type.
func telegramMediaMethod(ct string) (method, field string) {
	switch {
	case ct == "image/jpeg" || ct == "image/png" || ct == "image/webp":
		return "sendPhoto", "photo"
	case ct == "image/gif":
		return "sendAnimation", "animation"
	case strings.HasPrefix(ct, "video/"):
		return "sendVideo", "video"
	case strings.HasPrefix(ct, "audio/"):
		return "sendAudio", "audio"
	}
	return "sendDocument", "document"
}

// send sends the text (sendMessage) or each attachment (multipart upload,
// the text as the first one's caption; a URL is passed for Telegram to
// fetch).
func (t *telegram) send(ctx context.Context, r *Request, tg telegramTarget) (map[string]any, error) {
	common := map[string]any{"chat_id": chatID(tg.chat)}
	if tg.topic != "" {
		common["message_thread_id"] = intOrString(tg.topic)
	}
	if r.ReplyTo != "" {
		common["reply_parameters"] = map[string]any{"message_id": intOrString(r.ReplyTo)}
	}
	if r.Silent {
		common["disable_notification"] = true
	}
	if len(r.Buttons) > 0 {
		rows := make([][]map[string]string, len(r.Buttons))
		for i, row := range r.Buttons {
			for _, b := range row {
				btn := map[string]string{"text": b.Text}
				if b.URL != "" {
					btn["url"] = b.URL
				} else {
					btn["callback_data"] = firstNonEmptyStr(b.Data, b.Text)
				}
				rows[i] = append(rows[i], btn)
			}
		}
		common["reply_markup"] = map[string]any{"inline_keyboard": rows}
	}
	if len(r.Media) == 0 {
		if strings.TrimSpace(r.Message) == "" {
			return nil, need("telegram", r.Action, "message or media")
		}
		common["text"] = r.Message
		res, err := t.jsonMethod(ctx, "sendMessage", common)
		if err != nil {
			return nil, err
		}
		return sendResult("telegram", r.Target, []string{idString(res.Get("message_id").Value())},
			map[string]any{"chatId": idString(res.Get("chat.id").Value())}), nil
	}
	var ids []string
	chat := ""
	caption := r.Message
	for i, m := range r.Media {
		method, field := telegramMediaMethod(m.ContentType)
		if r.ForceDocument {
			method, field = "sendDocument", "document"
		}
		params := map[string]any{}
		for k, v := range common {
			params[k] = v
		}
		if i > 0 {
			delete(params, "reply_parameters")
			delete(params, "reply_markup")
		}
		if caption != "" {
			params["caption"] = caption
			caption = ""
		}
		var res gjson.Result
		var err error
		if m.Data == nil {
			params[field] = m.URL
			res, err = t.jsonMethod(ctx, method, params)
		} else {
			var fields [][2]string
			for k, v := range params {
				s, ok := v.(string)
				if !ok {
					b, err := json.Marshal(v)
					if err != nil {
						return nil, err
					}
					s = string(b)
				}
				fields = append(fields, [2]string{k, s})
			}
			b, berr := multipartBody(fields, []part{{field: field, media: m}})
			if berr != nil {
				return nil, berr
			}
			res, err = t.method(ctx, method, b)
		}
		if err != nil {
			if len(ids) > 0 {
				return nil, partial(err, ids)
			}
			return nil, err
		}
		ids = append(ids, idString(res.Get("message_id").Value()))
		chat = idString(res.Get("chat.id").Value())
	}
	return sendResult("telegram", r.Target, ids, map[string]any{"chatId": chat}), nil
}

func firstNonEmptyStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
