package message

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// params is the flat object of every action (irrelevant fields are not in
// that action's schema).
type params struct {
	Channel           string              `json:"channel"`
	Target            string              `json:"target"`
	To                string              `json:"to"`
	ChannelID         string              `json:"channelId"`
	AccountID         string              `json:"accountId"`
	DryRun            bool                `json:"dryRun"`
	SessionKey        string              `json:"sessionKey"`
	TimeoutMs         int                 `json:"timeoutMs"`
	Message           string              `json:"message"`
	Media             any                 `json:"media"` // a string or a list of them
	Buffer            string              `json:"buffer"`
	Filename          string              `json:"filename"`
	ContentType       string              `json:"contentType"`
	ReplyTo           string              `json:"replyTo"`
	ThreadID          string              `json:"threadId"`
	Silent            bool                `json:"silent"`
	MessageID         string              `json:"messageId"`
	Emoji             string              `json:"emoji"`
	Remove            bool                `json:"remove"`
	Limit             int                 `json:"limit"`
	Before            string              `json:"before"`
	After             string              `json:"after"`
	Around            string              `json:"around"`
	PollQuestion      string              `json:"pollQuestion"`
	PollOption        []string            `json:"pollOption"`
	PollMulti         bool                `json:"pollMulti"`
	PollDurationHours int                 `json:"pollDurationHours"`
	Query             string              `json:"query"`
	UserID            string              `json:"userId"`
	GuildID           string              `json:"guildId"`
	ThreadName        string              `json:"threadName"`
	Buttons           [][]channels.Button `json:"buttons"`
	ForceDocument     bool                `json:"forceDocument"`

	action string
}

// targetless actions address a whole server or the bot, not a conversation.
var targetless = map[string]bool{"thread-list": true, "search": true, "member-info": true, "channel-list": true, "permissions": true}

// mutations are governed by the cross-context rule (spec §4.5); reads and
// admin actions are not.
var mutations = map[string]bool{"send": true, "poll": true, "react": true, "edit": true, "delete": true, "pin": true, "unpin": true,
	"thread-create": true, "thread-reply": true}

// runFor is the handler of one action: resolve channel, account and
// target, apply the cross-context rule, load media, call the adapter.
func runFor(action string) tools.Handler {
	return tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
		p.action = action
		return do(ctx, env, p)
	})
}

func do(ctx context.Context, env *tools.Env, p params) (map[string]any, error) {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	action := p.action
	var allow []string
	if err := cfg.Decode("tools.message.actions.allow", &allow); err == nil && len(allow) > 0 && !contains(allow, action) {
		return nil, tools.Errorf(tools.CodeDenied, "message action %s is not in tools.message.actions.allow (%s)", action, strings.Join(allow, ", "))
	}
	target := firstNonEmpty(p.Target, p.To, p.ChannelID)
	bound, err := sessionRoute(ctx, env, p.SessionKey)
	if err != nil {
		return nil, err
	}
	needsTarget := !targetless[action] && !(strings.EqualFold(p.Channel, "telegram") && action == "permissions")
	if target == "" && bound == nil && needsTarget {
		return nil, missingTarget(action, strings.ToLower(p.Channel))
	}
	channel, err := resolveChannel(cfg, p.Channel, target, bound)
	if err != nil {
		return nil, err
	}
	if target == "" && bound != nil && bound.Channel == channel && (action == "send" || action == "poll" || action == "thread-reply" ||
		action == "read" || action == "react" || action == "reactions") {
		target = bound.To // the current conversation
		if p.ThreadID == "" {
			p.ThreadID = bound.ThreadID
		}
		if p.AccountID == "" {
			p.AccountID = bound.AccountID
		}
	}
	if target == "" && needsTarget && !(channel == "telegram" && action == "permissions") {
		return nil, missingTarget(action, channel)
	}
	if mutations[action] && bound != nil {
		if err := crossContext(cfg, bound, channel, target); err != nil {
			return nil, err
		}
	}
	acct, err := channels.Resolve(cfg, channel, p.AccountID)
	if err != nil {
		return nil, err
	}
	adapter, err := channels.Open(acct)
	if err != nil {
		return nil, err
	}
	if !adapter.Supports(action) {
		return nil, channels.Unsupported(channel, action)
	}
	req := &channels.Request{Action: action, Target: target, Message: p.Message, ReplyTo: p.ReplyTo, ThreadID: p.ThreadID,
		MessageID: p.MessageID, Emoji: p.Emoji, Remove: p.Remove, Limit: p.Limit, Before: p.Before, After: p.After, Around: p.Around,
		PollQuestion: p.PollQuestion, PollOptions: p.PollOption, PollMulti: p.PollMulti, PollHours: p.PollDurationHours,
		Query: p.Query, UserID: p.UserID, GuildID: p.GuildID, ThreadName: p.ThreadName, Silent: p.Silent, Buttons: p.Buttons, ForceDocument: p.ForceDocument}
	if req.GuildID == "" && channel == "discord" {
		req.GuildID = discordDefaultGuild(cfg)
	}
	req.Media, err = loadMedia(ctx, env, p, acct.MediaMaxBytes)
	if err != nil {
		return nil, err
	}
	if p.DryRun {
		var media []map[string]any
		for _, m := range req.Media {
			media = append(media, map[string]any{"name": m.Name, "contentType": m.ContentType, "size": len(m.Data), "url": m.URL})
		}
		return map[string]any{"ok": true, "dryRun": true, "channel": channel, "accountId": acct.ID, "action": action, "to": target,
			"apiBaseUrl": acct.APIBase, "message": p.Message, "media": media, "threadId": p.ThreadID, "replyTo": p.ReplyTo, "buttons": p.Buttons}, nil
	}
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	res, err := adapter.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	res["action"], res["accountId"] = action, acct.ID
	if _, ok := res["to"]; !ok && target != "" {
		res["to"] = target
	}
	return res, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// missingTarget is the error of an action without a destination (the
// original's "Action send requires a target."), naming the flag and forms.
func missingTarget(action, channel string) error {
	return tools.Errorf(tools.CodeInvalidParams, "Action %s requires a target. Pass --target (%s), or call it from a chat session.", action, targetHelp(channel)).
		WithDetails(map[string]any{"missing": "target", "channel": channel})
}

func targetHelp(channel string) string {
	switch channel {
	case "telegram":
		return "a Telegram chat id such as -1001234567890, @username, or <chatId>:topic:<id>"
	case "discord":
		return "a Discord channel:<id>, user:<id> or channel id"
	case "slack":
		return "a Slack channel:<id>, user:<id> or channel id"
	}
	return "Telegram chat id or @username; Discord/Slack channel:<id> or user:<id>"
}

// originalChannels are the original CLI's --channel choices (spec §4.4).
var originalChannels = []string{"telegram", "whatsapp", "discord", "irc", "googlechat", "slack", "signal", "imessage", "feishu", "nostr",
	"buzz", "msteams", "mattermost", "nextcloud-talk", "matrix", "raft", "a2a", "line", "zalo", "clickclack", "zalouser", "sms",
	"synology-chat", "tlon", "qa-channel", "reef", "twitch"}

// resolveChannel (spec §4.3): the explicit channel; else a target's
// provider prefix; else the bound conversation's; else the only configured
// channel; else an error naming the choices.
func resolveChannel(cfg *config.Config, explicit, target string, bound *route) (string, error) {
	known := channels.Known()
	if explicit != "" {
		ch := strings.ToLower(strings.TrimSpace(explicit))
		if !contains(known, ch) {
			if contains(originalChannels, ch) {
				return "", tools.Errorf(tools.CodeInvalidParams, "Message actions are not supported on %s: this build has no %s adapter (available: %s)",
					ch, ch, strings.Join(known, ", ")).WithDetails(map[string]any{"channel": ch})
			}
			return "", tools.Errorf(tools.CodeInvalidParams, "unknown channel %q (available here: %s)", explicit, strings.Join(known, ", "))
		}
		return ch, nil
	}
	if i := strings.Index(target, ":"); i > 0 {
		pre := strings.ToLower(target[:i])
		if pre == "tg" {
			pre = "telegram"
		}
		if contains(known, pre) {
			return pre, nil
		}
	}
	if bound != nil && bound.Channel != "" {
		return bound.Channel, nil
	}
	conf := channels.Configured(cfg)
	switch len(conf) {
	case 1:
		return conf[0], nil
	case 0:
		return "", tools.Errorf(tools.CodeInvalidParams, "No message channel is configured: set channels.telegram.botToken (or TELEGRAM_BOT_TOKEN), channels.discord.token or channels.slack.botToken, or pass --channel").
			WithDetails(map[string]any{"missing": "channel"})
	}
	return "", tools.Errorf(tools.CodeInvalidParams, "Channel is required when multiple channels are configured: %s", strings.Join(conf, ", ")).
		WithDetails(map[string]any{"missing": "channel", "configured": conf})
}

// discordDefaultGuild is the only guild under channels.discord.guilds.
func discordDefaultGuild(cfg *config.Config) string {
	var guilds map[string]any
	if err := cfg.Decode("channels.discord.guilds", &guilds); err != nil || len(guilds) != 1 {
		return ""
	}
	for id := range guilds {
		return id
	}
	return ""
}

// loadMedia reads the attachment: buffer (base64 or a data: URL), a URL
// (handed to the channel), or a file. A model's caller (agent, MCP) reads
// only inside its workspace and the state dir's media/; the local user
// anywhere. Each attachment is capped at the account's mediaMaxMb.
func loadMedia(ctx context.Context, env *tools.Env, p params, maxBytes int64) ([]channels.Media, error) {
	var out []channels.Media
	if p.Buffer != "" {
		data, ct, err := decodeBuffer(p.Buffer)
		if err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "buffer: %v", err)
		}
		if int64(len(data)) > maxBytes {
			return nil, tools.Errorf(tools.CodeInvalidParams, "buffer is %d bytes, over mediaMaxMb (%d bytes)", len(data), maxBytes)
		}
		name := p.Filename
		if name == "" {
			name = "file"
		}
		out = append(out, channels.Media{Name: name, ContentType: firstNonEmpty(p.ContentType, ct, contentTypeOf(name, data)), Data: data})
	}
	var refs []string
	switch m := p.Media.(type) {
	case string:
		refs = append(refs, m)
	case []any:
		for _, v := range m {
			if s, ok := v.(string); ok {
				refs = append(refs, s)
			}
		}
	}
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		switch {
		case ref == "":
			continue
		case strings.HasPrefix(ref, "data:"):
			return nil, tools.Errorf(tools.CodeInvalidParams, "media: data: URLs are not accepted; pass the bytes as buffer")
		case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
			out = append(out, channels.Media{URL: ref, Name: filepath.Base(ref)})
			continue
		}
		m, err := readMediaFile(env, strings.TrimPrefix(ref, "MEDIA:"), maxBytes)
		if err != nil {
			return nil, err
		}
		if p.ContentType != "" && len(refs) == 1 && p.Buffer == "" {
			m.ContentType = p.ContentType
		}
		if p.Filename != "" && len(refs) == 1 && p.Buffer == "" {
			m.Name = p.Filename
		}
		out = append(out, m)
	}
	return out, ctx.Err()
}

func readMediaFile(env *tools.Env, path string, maxBytes int64) (channels.Media, error) {
	path = tools.ExpandHome(strings.TrimSpace(path))
	if !filepath.IsAbs(path) {
		base := env.WorkspaceDir()
		if env.Subject.IsUser() {
			if wd, err := os.Getwd(); err == nil {
				base = wd
			}
		}
		path = filepath.Join(base, path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return channels.Media{}, tools.Errorf(tools.CodeInvalidParams, "media %s: %v", path, err)
	}
	if !env.Subject.IsUser() {
		ok := false
		for _, root := range mediaRoots(env) {
			if r, err := filepath.EvalSymlinks(root); err == nil && within(r, real) {
				ok = true
			}
		}
		if !ok {
			return channels.Media{}, tools.Errorf(tools.CodeDenied, "media %s is outside the media roots (%s); a caller other than the local user may attach only files there", path, strings.Join(mediaRoots(env), ", "))
		}
	}
	f, err := os.Open(real)
	if err != nil {
		return channels.Media{}, tools.Errorf(tools.CodeInvalidParams, "media: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return channels.Media{}, fmt.Errorf("media %s: %w", path, err)
	}
	if st.IsDir() {
		return channels.Media{}, tools.Errorf(tools.CodeInvalidParams, "media %s is a directory", path)
	}
	// A hard link inside a media root may name a file from anywhere (the
	// roots check above sees only this name): refused for a confined caller,
	// as symlinks out of the roots are, on the opened file.
	if !env.Subject.IsUser() && tools.HardLinked(st) {
		return channels.Media{}, tools.Errorf(tools.CodeDenied, "media %s has other hard links; a caller other than the local user may attach only a file with one name (copy it into the media roots instead)", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return channels.Media{}, fmt.Errorf("media %s: %w", path, err)
	}
	if int64(len(data)) > maxBytes {
		return channels.Media{}, tools.Errorf(tools.CodeInvalidParams, "media %s is larger than mediaMaxMb (%d bytes)", path, maxBytes)
	}
	name := filepath.Base(path)
	return channels.Media{Name: name, ContentType: contentTypeOf(name, data), Data: data}, nil
}

// mediaRoots are where a caller other than the local user (a model, a
// gateway connection) may attach files from, as the original's media local
// roots: the agent workspace, <state>/media, <state>/canvas,
// <state>/workspace, and /tmp/openclaw when this user owns it and nobody
// else may write it.
func mediaRoots(env *tools.Env) []string {
	roots := []string{env.WorkspaceDir()}
	for _, d := range []string{"media", "canvas", "workspace"} {
		roots = append(roots, filepath.Join(env.StateDir, d))
	}
	if tmp := filepath.Join(os.TempDir(), "openclaw"); privateDir(tmp) {
		roots = append(roots, tmp)
	}
	return roots
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func contentTypeOf(name string, data []byte) string {
	if ct := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); ct != "" {
		if i := strings.Index(ct, ";"); i > 0 {
			ct = ct[:i]
		}
		return ct
	}
	ct := http.DetectContentType(data)
	if i := strings.Index(ct, ";"); i > 0 {
		ct = ct[:i]
	}
	return ct
}

func decodeBuffer(s string) ([]byte, string, error) {
	ct := ""
	if strings.HasPrefix(s, "data:") {
		i := strings.Index(s, ",")
		if i < 0 || !strings.HasSuffix(s[:i], ";base64") {
			return nil, "", fmt.Errorf("a data: URL must be base64 (data:<type>;base64,…)")
		}
		ct = strings.TrimSuffix(strings.TrimPrefix(s[:i], "data:"), ";base64")
		s = s[i+1:]
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, "", err
	}
	return b, ct, nil
}
