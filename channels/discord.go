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

// Discord REST API v10 (https://discord.com/developers/docs/reference):
// Authorization: Bot <token>, JSON bodies (multipart with payload_json and
// files[n] for attachments), errors {message, code}, 429 {retry_after}.

var discordActions = []string{"send", "poll", "react", "reactions", "read", "edit", "delete", "pin", "unpin", "list-pins",
	"thread-create", "thread-list", "thread-reply", "search", "member-info", "channel-info", "channel-list", "permissions"}

type discord struct{ api }

func newDiscord(a Account) *discord {
	d := &discord{api{acct: a}}
	d.auth = func(h http.Header) { h.Set("Authorization", "Bot "+a.Token) }
	return d
}

func (d *discord) Channel() string             { return "discord" }
func (d *discord) Supports(action string) bool { return supports(discordActions, action) }

// ParseDiscordTarget reads channel:<id>, user:<id>, <@id>, <#id> and a
// bare id (a channel), optionally discord:-prefixed.
func ParseDiscordTarget(s string) (kind, id string) {
	kind, id, rest := parseIDTarget(s, "discord:")
	switch {
	case kind == "user" && strings.HasPrefix(rest, "<@"):
		return kind, strings.TrimPrefix(id, "!") // <@!id> is the nickname mention
	case kind != "":
		return kind, id
	case strings.HasPrefix(rest, "<#") && strings.HasSuffix(rest, ">"):
		return "channel", rest[2 : len(rest)-1]
	}
	return "channel", rest
}

// parseIDTarget reads what Discord and Slack targets share: an optional
// provider prefix, then channel:<id>, user:<id> or a <@id> mention. kind is
// empty when none matched; rest is the target without the prefix.
func parseIDTarget(s, prefix string) (kind, id, rest string) {
	s = strings.TrimSpace(s)
	if len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		s = s[len(prefix):]
	}
	switch {
	case strings.HasPrefix(s, "channel:"):
		return "channel", s[8:], s
	case strings.HasPrefix(s, "user:"):
		return "user", s[5:], s
	case strings.HasPrefix(s, "<@") && strings.HasSuffix(s, ">"):
		return "user", s[2 : len(s)-1], s
	}
	return "", "", s
}

func (d *discord) rest(ctx context.Context, method, path string, b *body) (gjson.Result, error) {
	resp, err := d.call(ctx, method, d.acct.APIBase+path, b)
	if err != nil {
		return gjson.Result{}, err
	}
	if resp.status < 200 || resp.status > 299 {
		return gjson.Result{}, d.apiError(method+" "+path, resp)
	}
	return resp.json(), nil
}

func (d *discord) restJSON(ctx context.Context, method, path string, v any) (gjson.Result, error) {
	b, err := jsonBody(v)
	if err != nil {
		return gjson.Result{}, err
	}
	return d.rest(ctx, method, path, b)
}

// channelID resolves the target to a channel id: a user target opens (or
// finds) the DM channel first.
func (d *discord) channelID(ctx context.Context, r *Request) (string, error) {
	kind, id := ParseDiscordTarget(r.Target)
	if id == "" {
		return "", need("discord", r.Action, "a target (channel:<id>, user:<id>, or a channel id)")
	}
	if kind == "user" {
		res, err := d.restJSON(ctx, http.MethodPost, "/users/@me/channels", map[string]any{"recipient_id": id})
		if err != nil {
			return "", err
		}
		return res.Get("id").String(), nil
	}
	return id, nil
}

func (d *discord) Probe(ctx context.Context) (map[string]any, error) {
	res, err := d.rest(ctx, http.MethodGet, "/users/@me", nil)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "bot": map[string]any{"id": res.Get("id").String(), "username": res.Get("username").String()}}, nil
}

func raw(r gjson.Result) json.RawMessage {
	if !r.Exists() {
		return json.RawMessage("null")
	}
	return json.RawMessage(r.Raw)
}

func (d *discord) Do(ctx context.Context, r *Request) (map[string]any, error) {
	if !d.Supports(r.Action) {
		return nil, Unsupported("discord", r.Action)
	}
	// Guild-level actions need no channel target.
	switch r.Action {
	case "thread-list", "search", "member-info", "channel-list":
		if r.GuildID == "" {
			return nil, need("discord", r.Action, "guildId")
		}
	}
	switch r.Action {
	case "thread-list":
		res, err := d.rest(ctx, http.MethodGet, "/guilds/"+url.PathEscape(r.GuildID)+"/threads/active", nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"threads": raw(res.Get("threads"))}), nil
	case "search":
		if r.Query == "" {
			return nil, need("discord", "search", "query")
		}
		q := url.Values{"content": {r.Query}}
		if r.Limit > 0 {
			q.Set("limit", strconv.Itoa(min(r.Limit, 25)))
		}
		res, err := d.rest(ctx, http.MethodGet, "/guilds/"+url.PathEscape(r.GuildID)+"/messages/search?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"total": res.Get("total_results").Int(), "messages": raw(res.Get("messages"))}), nil
	case "member-info":
		if r.UserID == "" {
			return nil, need("discord", "member-info", "userId")
		}
		res, err := d.rest(ctx, http.MethodGet, "/guilds/"+url.PathEscape(r.GuildID)+"/members/"+url.PathEscape(r.UserID), nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"member": raw(res)}), nil
	case "channel-list":
		res, err := d.rest(ctx, http.MethodGet, "/guilds/"+url.PathEscape(r.GuildID)+"/channels", nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"channels": raw(res)}), nil
	}
	ch, err := d.channelID(ctx, r)
	if err != nil {
		return nil, err
	}
	cpath := "/channels/" + url.PathEscape(ch)
	mpath := func() (string, error) {
		if r.MessageID == "" {
			return "", need("discord", r.Action, "messageId")
		}
		return cpath + "/messages/" + url.PathEscape(r.MessageID), nil
	}
	switch r.Action {
	case "send", "thread-reply":
		if r.Action == "thread-reply" || r.ThreadID != "" {
			if r.ThreadID == "" {
				return nil, need("discord", r.Action, "threadId (the thread's channel id)")
			}
			ch = r.ThreadID // a thread is a channel
		}
		return d.send(ctx, r, ch)
	case "poll":
		if r.PollQuestion == "" || len(r.PollOptions) < 2 {
			return nil, need("discord", "poll", "pollQuestion and 2-10 pollOption values")
		}
		answers := make([]map[string]any, len(r.PollOptions))
		for i, o := range r.PollOptions {
			answers[i] = map[string]any{"poll_media": map[string]string{"text": o}}
		}
		hours := r.PollHours
		if hours <= 0 {
			hours = 24
		}
		res, err := d.restJSON(ctx, http.MethodPost, cpath+"/messages", map[string]any{"poll": map[string]any{
			"question": map[string]string{"text": r.PollQuestion}, "answers": answers, "duration": hours, "allow_multiselect": r.PollMulti}})
		if err != nil {
			return nil, err
		}
		return sendResult("discord", r.Target, []string{res.Get("id").String()}, map[string]any{"channelId": ch}), nil
	case "react":
		p, err := mpath()
		if err != nil {
			return nil, err
		}
		if r.Emoji == "" {
			return nil, need("discord", "react", "emoji")
		}
		method := http.MethodPut
		if r.Remove {
			method = http.MethodDelete
		}
		if _, err := d.rest(ctx, method, p+"/reactions/"+url.PathEscape(r.Emoji)+"/@me", nil); err != nil {
			return nil, err
		}
		return okResult("discord", "react", map[string]any{"messageId": r.MessageID, "emoji": r.Emoji, "removed": r.Remove}), nil
	case "reactions":
		p, err := mpath()
		if err != nil {
			return nil, err
		}
		res, err := d.rest(ctx, http.MethodGet, p, nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"messageId": r.MessageID, "reactions": raw(res.Get("reactions"))}), nil
	case "read":
		q := url.Values{}
		if r.Limit > 0 {
			q.Set("limit", strconv.Itoa(min(r.Limit, 100)))
		}
		for k, v := range map[string]string{"before": r.Before, "after": r.After, "around": r.Around} {
			if v != "" {
				q.Set(k, v)
			}
		}
		p := cpath + "/messages"
		if len(q) > 0 {
			p += "?" + q.Encode()
		}
		res, err := d.rest(ctx, http.MethodGet, p, nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"channelId": ch, "messages": raw(res)}), nil
	case "edit":
		p, err := mpath()
		if err != nil {
			return nil, err
		}
		if r.Message == "" {
			return nil, need("discord", "edit", "message (the new text)")
		}
		if _, err := d.restJSON(ctx, http.MethodPatch, p, map[string]any{"content": r.Message}); err != nil {
			return nil, err
		}
		return okResult("discord", "edit", map[string]any{"messageId": r.MessageID}), nil
	case "delete":
		p, err := mpath()
		if err != nil {
			return nil, err
		}
		if _, err := d.rest(ctx, http.MethodDelete, p, nil); err != nil {
			return nil, err
		}
		return okResult("discord", "delete", map[string]any{"messageId": r.MessageID}), nil
	case "pin", "unpin":
		if r.MessageID == "" {
			return nil, need("discord", r.Action, "messageId")
		}
		method := http.MethodPut
		if r.Action == "unpin" {
			method = http.MethodDelete
		}
		if _, err := d.rest(ctx, method, cpath+"/pins/"+url.PathEscape(r.MessageID), nil); err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"messageId": r.MessageID}), nil
	case "list-pins":
		res, err := d.rest(ctx, http.MethodGet, cpath+"/pins", nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"channelId": ch, "pins": raw(res)}), nil
	case "thread-create":
		name := r.ThreadName
		if name == "" {
			return nil, need("discord", "thread-create", "threadName")
		}
		var res gjson.Result
		var err error
		if r.MessageID != "" {
			res, err = d.restJSON(ctx, http.MethodPost, cpath+"/messages/"+url.PathEscape(r.MessageID)+"/threads", map[string]any{"name": name})
		} else {
			res, err = d.restJSON(ctx, http.MethodPost, cpath+"/threads", map[string]any{"name": name, "type": 11})
		}
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"threadId": res.Get("id").String(), "name": res.Get("name").String()}), nil
	case "channel-info":
		res, err := d.rest(ctx, http.MethodGet, cpath, nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"channel": raw(res)}), nil
	case "permissions":
		res, err := d.rest(ctx, http.MethodGet, cpath, nil)
		if err != nil {
			return nil, err
		}
		return okResult("discord", r.Action, map[string]any{"channelId": ch, "guildId": res.Get("guild_id").String(),
			"permissionOverwrites": raw(res.Get("permission_overwrites"))}), nil
	}
	return nil, Unsupported("discord", r.Action)
}

// send posts the text and the attachments in one message: JSON, or
// multipart with payload_json and files[n] when there are files (URLs are
// linked in the text; Discord does not fetch them).
func (d *discord) send(ctx context.Context, r *Request, ch string) (map[string]any, error) {
	content := r.Message
	var files []part
	for _, m := range r.Media {
		if m.Data == nil {
			if content != "" {
				content += "\n"
			}
			content += m.URL
			continue
		}
		files = append(files, part{field: fmt.Sprintf("files[%d]", len(files)), media: m})
	}
	if strings.TrimSpace(content) == "" && len(files) == 0 {
		return nil, need("discord", r.Action, "message or media")
	}
	payload := map[string]any{}
	if content != "" {
		payload["content"] = content
	}
	if r.ReplyTo != "" {
		payload["message_reference"] = map[string]any{"message_id": r.ReplyTo, "fail_if_not_exists": false}
	}
	if r.Silent {
		payload["flags"] = 1 << 12 // SUPPRESS_NOTIFICATIONS
	}
	if len(r.Buttons) > 0 {
		var rows []map[string]any
		for _, row := range r.Buttons {
			var comps []map[string]any
			for _, b := range row {
				c := map[string]any{"type": 2, "label": b.Text}
				if b.URL != "" {
					c["style"], c["url"] = 5, b.URL // link button
				} else {
					c["style"], c["custom_id"] = 1, firstNonEmptyStr(b.Data, b.Text)
				}
				comps = append(comps, c)
			}
			rows = append(rows, map[string]any{"type": 1, "components": comps}) // action row
		}
		payload["components"] = rows
	}
	var b *body
	var err error
	if len(files) > 0 {
		atts := make([]map[string]any, len(files))
		for i, f := range files {
			atts[i] = map[string]any{"id": i, "filename": f.media.Name}
		}
		payload["attachments"] = atts
		pj, jerr := json.Marshal(payload)
		if jerr != nil {
			return nil, jerr
		}
		b, err = multipartBody([][2]string{{"payload_json", string(pj)}}, files)
	} else {
		b, err = jsonBody(payload)
	}
	if err != nil {
		return nil, err
	}
	res, err := d.rest(ctx, http.MethodPost, "/channels/"+url.PathEscape(ch)+"/messages", b)
	if err != nil {
		return nil, err
	}
	return sendResult("discord", r.Target, []string{res.Get("id").String()}, map[string]any{"channelId": ch}), nil
}
