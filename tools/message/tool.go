// Package message is the `message` agent tool and `openclaw message
// <action>` (spec §4): send, poll, react, read, edit, delete, pins,
// threads, search and info actions on the channel adapters of channels/,
// each where the channel's API has it. It also serves the gateway's `send`
// and `message.action` methods (methods.go), which run the same actions
// through the one door.
package message

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/tools"
)

// props are the tool's params (spec §4.2), one flat vocabulary; each
// action's schema takes the ones it uses.
var props = map[string]string{
	"channel":           `{"type":"string","description":"Channel id (telegram, discord, slack); optional when one channel is configured or the target is prefixed (telegram:…)"}`,
	"target":            `{"type":"string","description":"Destination: Telegram chat id (-100…), @username or <chatId>:topic:<id>; Discord/Slack channel:<id>, user:<id> or a bare channel id"}`,
	"to":                `{"type":"string","description":"Alias of target"}`,
	"channelId":         `{"type":"string","description":"Alias of target (a channel id)"}`,
	"accountId":         `{"type":"string","description":"Channel account (channels.<id>.accounts key); default the channel's default account"}`,
	"dryRun":            `{"type":"boolean","description":"Resolve and return the payload without calling the channel"}`,
	"sessionKey":        `{"type":"string","description":"Session the call is made for; a chat session's own conversation governs cross-context sends"}`,
	"message":           `{"type":"string","description":"Message text (edit: the new text)"}`,
	"media":             `{"type":["string","array"],"items":{"type":"string"},"description":"Attachment(s): a local path, MEDIA:<path> reference or http(s) URL (data: URLs are refused: use buffer); repeat for several"}`,
	"buttons":           `{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string","minLength":1,"description":"Button label"},"callback_data":{"type":"string","description":"Data sent back to the bot when pressed (instead of url)"},"url":{"type":"string","description":"Link the button opens"}},"required":["text"],"additionalProperties":false}},"description":"Rows of buttons under the message ([{text, url} or {text, callback_data}]): Telegram inline keyboard, Discord components, Slack actions; on the command line one --buttons JSON array per row"}`,
	"forceDocument":     `{"type":"boolean","description":"Send images and videos as documents (Telegram: no compression)"}`,
	"buffer":            `{"type":"string","description":"Attachment bytes as base64 or a data: URL"}`,
	"filename":          `{"type":"string","description":"Attachment file name (with buffer)"}`,
	"contentType":       `{"type":"string","description":"Attachment MIME type (default from the name or the bytes)"}`,
	"replyTo":           `{"type":"string","description":"Message id to reply to"}`,
	"threadId":          `{"type":"string","description":"Thread: Telegram topic id, Discord thread channel id, Slack thread ts"}`,
	"silent":            `{"type":"boolean","description":"Send without notification"}`,
	"messageId":         `{"type":"string","description":"The message id (Slack: its ts)"}`,
	"emoji":             `{"type":"string","description":"Reaction emoji (Slack: a name such as thumbsup)"}`,
	"remove":            `{"type":"boolean","description":"react: remove the reaction instead"}`,
	"limit":             `{"type":"integer","minimum":1,"maximum":1000,"description":"How many to fetch"}`,
	"before":            `{"type":"string","description":"read: messages before this id (Slack: ts)"}`,
	"after":             `{"type":"string","description":"read: messages after this id (Slack: ts)"}`,
	"around":            `{"type":"string","description":"read: messages around this id (Discord)"}`,
	"pollQuestion":      `{"type":"string","description":"poll: the question"}`,
	"pollOption":        `{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":12,"description":"poll: the answers (2-12)"}`,
	"pollMulti":         `{"type":"boolean","description":"poll: allow several answers"}`,
	"pollDurationHours": `{"type":"integer","minimum":1,"maximum":768,"description":"poll: how long it runs (Discord)"}`,
	"query":             `{"type":"string","description":"search: the text to find"}`,
	"userId":            `{"type":"string","description":"member-info: the user id"}`,
	"guildId":           `{"type":"string","description":"Discord server (guild) id for member-info, search, thread-list, channel-list"}`,
	"threadName":        `{"type":"string","description":"thread-create: the thread (forum topic) name"}`,
	"timeoutMs":         `{"type":"integer","minimum":0,"description":"Timeout for the channel call"}`,
}

var routing = []string{"channel", "target", "to", "channelId", "accountId", "dryRun", "sessionKey", "timeoutMs"}

// actionProps are each action's params beyond routing.
var actionProps = map[string][]string{
	"send":          {"message", "media", "buttons", "forceDocument", "buffer", "filename", "contentType", "replyTo", "threadId", "silent"},
	"poll":          {"pollQuestion", "pollOption", "pollMulti", "pollDurationHours", "threadId"},
	"react":         {"messageId", "emoji", "remove"},
	"reactions":     {"messageId"},
	"read":          {"limit", "before", "after", "around", "threadId"},
	"edit":          {"messageId", "message"},
	"delete":        {"messageId"},
	"pin":           {"messageId", "silent"},
	"unpin":         {"messageId"},
	"list-pins":     {},
	"thread-create": {"threadName", "messageId", "message"},
	"thread-list":   {"guildId"},
	"thread-reply":  {"threadId", "message", "media", "buffer", "filename", "contentType", "replyTo"},
	"search":        {"query", "limit", "guildId"},
	"member-info":   {"userId", "guildId"},
	"channel-info":  {},
	"channel-list":  {"guildId", "limit"},
	"permissions":   {},
}

var summaries = map[string]string{
	"send":          "Send a message (text and media) to a channel target",
	"poll":          "Send a poll",
	"react":         "Add or remove a reaction on a message",
	"reactions":     "List a message's reactions",
	"read":          "Read recent messages of a conversation",
	"edit":          "Edit a sent message",
	"delete":        "Delete a message",
	"pin":           "Pin a message",
	"unpin":         "Unpin a message",
	"list-pins":     "List pinned messages",
	"thread-create": "Create a thread (Telegram forum topic)",
	"thread-list":   "List active threads",
	"thread-reply":  "Reply in a thread",
	"search":        "Search messages",
	"member-info":   "Show a member",
	"channel-info":  "Show a conversation",
	"channel-list":  "List channels",
	"permissions":   "Show the bot's permissions",
}

var examples = map[string][]string{
	"send": {`openclaw message send --channel telegram --target -1001234567890 --message "Deployed"`,
		`openclaw message send --channel discord --target channel:123 --message "see attached" --media ./report.pdf`},
	"poll":  {`openclaw message poll --channel telegram --target @team --poll-question Lunch? --poll-option Pizza --poll-option Sushi`},
	"react": {`openclaw message react --channel slack --target C123 --message-id 1700000000.000100 --emoji thumbsup`},
}

// schemaFor is an action's schema: routing and its own params (built once
// at init, without fmt, to keep the binary's start-up cheap).
func schemaFor(action string) string {
	// Exact size first: one allocation per schema, none wasted (the init
	// cost test bounds this package's start-up bytes).
	n := len(`{"type":"object","properties":{},"additionalProperties":false}`)
	for _, list := range [2][]string{routing, actionProps[action]} {
		for _, p := range list {
			n += len(p) + len(props[p]) + 4 // "name": and a comma
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(`{"type":"object","properties":{`)
	first := true
	for _, list := range [2][]string{routing, actionProps[action]} {
		for _, n := range list {
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteByte('"')
			b.WriteString(n)
			b.WriteString(`":`)
			b.WriteString(props[n])
		}
	}
	b.WriteString(`},"additionalProperties":false}`)
	return b.String()
}

func init() {
	known := channels.Known()
	for _, action := range channels.Actions {
		sup := ""
		for _, ch := range known {
			if channels.Supports(ch, action) {
				if sup != "" {
					sup += ", "
				}
				sup += ch
			}
		}
		tools.Register(&tools.Action{
			Tool: "message", Verb: action, Where: tools.Local,
			Summary:     summaries[action],
			Description: "Supported on: " + sup + `. Other channels answer "not supported on <channel>" (exit 2).`,
			Examples:    examples[action],
			Schema:      schemaFor(action),
			Run:         runFor(action),
			Flags:       accountFlag,
			Render:      render,
			ReadOnly:    readOnly[action],
			Idempotent:  readOnly[action],
			Destructive: action == "edit" || action == "delete" || action == "unpin",
			OpenWorld:   true,
		})
	}
}

// readOnly lists the actions that only look (MCP's read-only hint; `mcp
// serve --read-only` keeps these).
var readOnly = map[string]bool{"reactions": true, "read": true, "list-pins": true, "thread-list": true, "search": true,
	"member-info": true, "channel-info": true, "channel-list": true, "permissions": true}

// accountFlag is the original CLI's --account for accountId, -m and -t.
var accountFlag = map[string]string{"accountId": "account", "message": "message,m", "target": "target,t"}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// render prints a send's id, or the result's main fields.
func render(w io.Writer, r gjson.Result) error {
	if r.Get("dryRun").Bool() {
		_, err := fmt.Fprintf(w, "[dry run] %s %s → %s (%s)\n", r.Get("channel").String(), r.Get("action").String(),
			r.Get("to").String(), r.Get("accountId").String())
		return err
	}
	switch a := r.Get("action").String(); a {
	case "send", "poll", "thread-reply":
		_, err := fmt.Fprintf(w, "Sent via %s to %s. Message ID: %s\n", r.Get("channel").String(), r.Get("to").String(), r.Get("messageId").String())
		return err
	case "react", "edit", "delete", "pin", "unpin":
		_, err := fmt.Fprintf(w, "%s %s on %s: ok\n", a, r.Get("messageId").String(), r.Get("channel").String())
		return err
	case "thread-create":
		_, err := fmt.Fprintf(w, "Thread %s created on %s\n", r.Get("threadId").String(), r.Get("channel").String())
		return err
	}
	_, err := fmt.Fprintln(w, r.Raw)
	return err
}
