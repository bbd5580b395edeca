// Package channels holds the message channel adapters: each one a client of
// the platform's real HTTP API (Telegram Bot API, Discord REST, Slack Web
// API) with a configurable API base (channels.<id>.apiBaseUrl), so a
// self-hosted Bot API server or a local stand-in can take its place.
//
// An adapter does one Request (an action of the message tool with its
// params already parsed) and answers the platform's result as a JSON
// object; an action the platform has no API for is ErrUnsupported.
package channels

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
)

// Actions is the message tool's core vocabulary this package knows (spec
// §4.1, the Classic subset documented for models), in display order.
var Actions = []string{"send", "poll", "react", "reactions", "read", "edit", "delete", "pin", "unpin", "list-pins",
	"thread-create", "thread-list", "thread-reply", "search", "member-info", "channel-info", "channel-list", "permissions"}

// Media is one attachment, read by the caller (a local file, a stored
// media reference) or named by URL (URL set, Data nil).
type Media struct {
	Name        string
	ContentType string
	Data        []byte
	URL         string
}

// Request is one message action with its params (spec §4.2, the fields
// these adapters use; the rest are ignored per action).
type Request struct {
	Action       string
	Target       string // the destination as the user wrote it (prefix stripped or not)
	Message      string
	Media        []Media
	ReplyTo      string
	ThreadID     string
	MessageID    string
	Emoji        string
	Remove       bool
	Limit        int
	Before       string
	After        string
	Around       string
	PollQuestion string
	PollOptions  []string
	PollMulti    bool
	PollHours    int
	Query        string
	UserID       string
	GuildID      string
	ThreadName   string
	Silent       bool
	// Buttons are rows of buttons under a sent message: Telegram inline
	// keyboard, Discord components, Slack actions blocks.
	Buttons [][]Button
	// ForceDocument sends images and videos as documents (no compression).
	ForceDocument bool
}

// Button is one button: a URL opens a link; Data is the callback value.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Adapter is one channel's client for one account.
type Adapter interface {
	// Channel is the channel id ("telegram").
	Channel() string
	// Supports reports whether the platform's API has the action.
	Supports(action string) bool
	// Do runs one action.
	Do(ctx context.Context, r *Request) (map[string]any, error)
	// Probe checks the credentials (Telegram getMe, Discord users/@me,
	// Slack auth.test) and answers who the bot is.
	Probe(ctx context.Context) (map[string]any, error)
}

// Known is the channels with an adapter here, sorted.
func Known() []string {
	ids := make([]string, 0, len(kinds))
	for id := range kinds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// kind is one channel implementation.
type kind struct {
	defaultBase string
	tokenKeys   []string // config keys holding the token, first set wins
	tokenEnv    string   // environment fallback for the default account
	tokenFile   bool     // tokenFile is accepted
	actions     []string
	open        func(a Account) Adapter
}

var kinds = map[string]kind{
	"telegram": {defaultBase: "https://api.telegram.org", tokenKeys: []string{"botToken"}, tokenEnv: "TELEGRAM_BOT_TOKEN",
		tokenFile: true, actions: telegramActions, open: func(a Account) Adapter { return newTelegram(a) }},
	"discord": {defaultBase: "https://discord.com/api/v10", tokenKeys: []string{"token"}, tokenEnv: "DISCORD_BOT_TOKEN",
		tokenFile: true, actions: discordActions, open: func(a Account) Adapter { return newDiscord(a) }},
	"slack": {defaultBase: "https://slack.com/api", tokenKeys: []string{"botToken"}, tokenEnv: "SLACK_BOT_TOKEN",
		tokenFile: true, actions: slackActions, open: func(a Account) Adapter { return newSlack(a) }},
}

// SupportedActions is the actions a channel's adapter has, in Actions'
// order; nil for a channel without an adapter.
func SupportedActions(channel string) []string {
	k, ok := kinds[channel]
	if !ok {
		return nil
	}
	var out []string
	for _, a := range Actions {
		if slices.Contains(k.actions, a) {
			out = append(out, a)
		}
	}
	return out
}

// Supports reports whether a channel's adapter has the action.
func Supports(channel, action string) bool {
	k, ok := kinds[channel]
	return ok && slices.Contains(k.actions, action)
}

// Open returns the adapter for a resolved account.
func Open(a Account) (Adapter, error) {
	k, ok := kinds[a.Channel]
	if !ok {
		return nil, failure.Errorf(failure.CodeInvalidParams, "unknown channel %q (known: %s)", a.Channel, strings.Join(Known(), ", "))
	}
	return k.open(a), nil
}

// Unsupported is the error for an action the channel's API does not offer.
func Unsupported(channel, action string) error {
	return failure.Errorf(failure.CodeInvalidParams, "Message action %s not supported on %s (supported: %s)",
		action, channel, strings.Join(SupportedActions(channel), ", ")).WithDetails(map[string]any{"channel": channel, "action": action})
}

// need is the error for a param an action requires.
func need(channel, action, what string) error {
	return failure.Errorf(failure.CodeInvalidParams, "%s %s requires %s", channel, action, what)
}

func supports(list []string, action string) bool { return slices.Contains(list, action) }

// sendResult is the common shape of a send's result (spec §4.2: at least
// {ok, channel, to, messageId}).
func sendResult(channel, to string, ids []string, extra map[string]any) map[string]any {
	out := map[string]any{"ok": true, "channel": channel, "to": to}
	if len(ids) > 0 {
		out["messageId"] = ids[len(ids)-1]
	}
	if len(ids) > 1 {
		out["messageIds"] = ids
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func okResult(channel, action string, extra map[string]any) map[string]any {
	out := map[string]any{"ok": true, "channel": channel, "action": action}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// idString renders a JSON number or string id as a string.
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprintf("%.0f", x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// partial is a failure after some of a send's messages went out: the
// error says which, so nobody resends them blindly.
func partial(err error, ids []string) error {
	e := failure.AsError(err)
	return failure.Wrap(e.Code, fmt.Sprintf("%s (after sending %d message(s): %s)", e.Message, len(ids), strings.Join(ids, ", ")), err).
		WithDetails(map[string]any{"partialDelivery": ids})
}
