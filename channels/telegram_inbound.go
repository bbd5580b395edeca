package channels

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Inbound Telegram: long polling with getUpdates. The hand-written client
// stays (not github.com/go-telegram/bot): the caller decides when an
// update counts as taken (the offset it passes is the one stored after the
// update was recorded), which that library's polling loop does by itself
// as soon as it has fetched a batch; and outbound already speaks the Bot
// API here with its 429 handling and error texts.

// TelegramTextLimit is the most characters one sendMessage text carries.
const TelegramTextLimit = 4096

// TelegramInbound is one inbound Telegram message, as the gateway uses it.
type TelegramInbound struct {
	UpdateID  int64
	MessageID int64
	ChatID    string
	// ChatType is private, group, supergroup or channel.
	ChatType       string
	SenderID       string
	SenderUsername string
	SenderName     string
	SenderIsBot    bool
	// Text is the message text, or a media message's caption.
	Text string
	// ThreadID is a forum topic's id ("" outside topics).
	ThreadID string
}

// Direct says the message came in a private chat with the bot.
func (m TelegramInbound) Direct() bool { return m.ChatType == "private" }

type tgUser struct {
	ID        *int64 `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

type tgMessage struct {
	MessageID int64   `json:"message_id"`
	ThreadID  *int64  `json:"message_thread_id"`
	From      *tgUser `json:"from"`
	Chat      *struct {
		ID   *int64 `json:"id"`
		Type string `json:"type"`
	} `json:"chat"`
	Text    string `json:"text"`
	Caption string `json:"caption"`
}

type tgUpdate struct {
	UpdateID *int64     `json:"update_id"`
	Message  *tgMessage `json:"message"`
}

// ErrTelegramUpdate marks an update the parser could not read.
var ErrTelegramUpdate = errors.New("telegram update")

// TelegramUpdateID reads an update's update_id alone (so an update whose
// body cannot be used is still recorded and skipped, never fetched again).
func TelegramUpdateID(raw []byte) (int64, error) {
	var u struct {
		UpdateID *int64 `json:"update_id"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrTelegramUpdate, err)
	}
	if u.UpdateID == nil || *u.UpdateID < 0 {
		return 0, fmt.Errorf("%w: no update_id", ErrTelegramUpdate)
	}
	return *u.UpdateID, nil
}

// ParseTelegramUpdate reads one update object. ok is false for an update
// this gateway does not act on (edits, callbacks, channel posts, service
// messages without text, messages without a sender); an error is a body
// that is not a Telegram update.
func ParseTelegramUpdate(raw []byte) (m TelegramInbound, ok bool, err error) {
	var u tgUpdate
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&u); err != nil {
		return m, false, fmt.Errorf("%w: %v", ErrTelegramUpdate, err)
	}
	if u.UpdateID == nil || *u.UpdateID < 0 {
		return m, false, fmt.Errorf("%w: no update_id", ErrTelegramUpdate)
	}
	m.UpdateID = *u.UpdateID
	msg := u.Message
	if msg == nil || msg.From == nil || msg.From.ID == nil || msg.Chat == nil || msg.Chat.ID == nil {
		return m, false, nil
	}
	m.MessageID = msg.MessageID
	m.ChatID = strconv.FormatInt(*msg.Chat.ID, 10)
	m.ChatType = msg.Chat.Type
	m.SenderID = strconv.FormatInt(*msg.From.ID, 10)
	m.SenderIsBot = msg.From.IsBot
	m.SenderUsername = msg.From.Username
	m.SenderName = msg.From.FirstName
	if msg.From.LastName != "" {
		m.SenderName += " " + msg.From.LastName
	}
	if msg.ThreadID != nil {
		m.ThreadID = strconv.FormatInt(*msg.ThreadID, 10)
	}
	m.Text = msg.Text
	if m.Text == "" {
		m.Text = msg.Caption
	}
	if !utf8.ValidString(m.Text) || m.Text == "" {
		return m, false, nil
	}
	return m, true, nil
}

// TelegramGetUpdates asks for the updates from offset on, waiting up to
// timeoutSec seconds for one (long polling), and returns each update's
// raw JSON in order. Only messages are asked for.
func TelegramGetUpdates(ctx context.Context, a Account, offset int64, timeoutSec int) ([]json.RawMessage, error) {
	t := newTelegram(a)
	res, err := t.jsonMethod(ctx, "getUpdates", map[string]any{"offset": offset, "timeout": timeoutSec,
		"allowed_updates": []string{"message"}})
	if err != nil {
		return nil, err
	}
	if !res.IsArray() {
		return nil, fmt.Errorf("%w: getUpdates answered no list", ErrTelegramUpdate)
	}
	var out []json.RawMessage
	for _, u := range res.Array() {
		out = append(out, json.RawMessage(u.Raw))
	}
	return out, nil
}

// utf16Len is a text's length as Telegram counts it (UTF-16 code units).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		n += w
	}
	return n
}

// SplitText cuts text into pieces of at most limit characters (UTF-16
// code units, as Telegram counts), preferring paragraph breaks, then line
// breaks, then spaces; a word longer than limit is cut where it must be.
// Whitespace at the cuts is dropped; empty text gives no pieces.
func SplitText(text string, limit int) []string {
	var out []string
	for {
		text = trimSpaceRunes(text)
		if text == "" {
			return out
		}
		if utf16Len(text) <= limit {
			return append(out, text)
		}
		// the longest prefix within limit
		end, n := 0, 0
		for i, r := range text {
			w := utf16.RuneLen(r)
			if w < 0 {
				w = 1
			}
			if n+w > limit {
				break
			}
			n += w
			end = i + utf8.RuneLen(r)
		}
		cut := -1
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := lastIndex(text[:end], sep); i > 0 {
				cut = i
				break
			}
		}
		if cut <= 0 {
			cut = end
		}
		out = append(out, trimSpaceRunes(text[:cut]))
		text = text[cut:]
	}
}

func lastIndex(s, sep string) int {
	return bytes.LastIndex([]byte(s), []byte(sep))
}

func trimSpaceRunes(s string) string {
	return string(bytes.TrimSpace([]byte(s)))
}
