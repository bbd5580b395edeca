package channels

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseTelegramUpdate(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		ok   bool
		err  bool
		want TelegramInbound
	}{
		{name: "dm", ok: true, raw: `{"update_id":7,"message":{"message_id":3,"from":{"id":5001,"is_bot":false,"first_name":"Al","last_name":"Ice","username":"al"},"chat":{"id":5001,"type":"private"},"text":"hi"}}`,
			want: TelegramInbound{UpdateID: 7, MessageID: 3, ChatID: "5001", ChatType: "private", SenderID: "5001", SenderUsername: "al", SenderName: "Al Ice", Text: "hi"}},
		{name: "caption", ok: true, raw: `{"update_id":8,"message":{"message_id":4,"from":{"id":1},"chat":{"id":-100123,"type":"supergroup"},"caption":"look","message_thread_id":42}}`,
			want: TelegramInbound{UpdateID: 8, MessageID: 4, ChatID: "-100123", ChatType: "supergroup", SenderID: "1", Text: "look", ThreadID: "42"}},
		{name: "edit is skipped", raw: `{"update_id":9,"edited_message":{"message_id":4,"from":{"id":1},"chat":{"id":1,"type":"private"},"text":"x"}}`, want: TelegramInbound{UpdateID: 9}},
		{name: "no sender", raw: `{"update_id":10,"message":{"message_id":4,"chat":{"id":1,"type":"private"},"text":"x"}}`, want: TelegramInbound{UpdateID: 10}},
		{name: "no update_id", raw: `{"message":{}}`, err: true},
		{name: "negative update_id", raw: `{"update_id":-1}`, err: true},
		{name: "not json", raw: `{"update_id":`, err: true},
		{name: "id as string", raw: `{"update_id":"7"}`, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := ParseTelegramUpdate([]byte(c.raw))
			if (err != nil) != c.err || ok != c.ok {
				t.Fatalf("ok=%v err=%v, want ok=%v err=%v", ok, err, c.ok, c.err)
			}
			if !c.err && got != c.want {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// The inbound parser takes whatever a Bot API server (or anyone who can
// answer in its place) sends: it never panics, and what it accepts is a
// message with numeric chat and sender ids, valid UTF-8 text, and the
// same update_id TelegramUpdateID reads.
func FuzzParseTelegramUpdate(f *testing.F) {
	for _, s := range []string{
		`{"update_id":7,"message":{"message_id":3,"from":{"id":5001,"is_bot":false,"first_name":"Al"},"chat":{"id":5001,"type":"private"},"text":"hi"}}`,
		`{"update_id":8,"message":{"message_id":4,"from":{"id":1},"chat":{"id":-100123,"type":"supergroup"},"caption":"look","message_thread_id":42}}`,
		`{"update_id":9,"edited_message":{}}`, `{"update_id":1e3}`, `[]`, `null`, `{"update_id":9223372036854775807,"message":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, ok, err := ParseTelegramUpdate(raw)
		id, idErr := TelegramUpdateID(raw)
		if err == nil && idErr == nil && id != m.UpdateID {
			t.Fatalf("update_id %d vs %d", id, m.UpdateID)
		}
		if err != nil && ok {
			t.Fatal("ok with an error")
		}
		if !ok {
			return
		}
		if _, e := strconv.ParseInt(m.ChatID, 10, 64); e != nil {
			t.Fatalf("chat id %q", m.ChatID)
		}
		if _, e := strconv.ParseInt(m.SenderID, 10, 64); e != nil {
			t.Fatalf("sender id %q", m.SenderID)
		}
		if m.Text == "" || !utf8.ValidString(m.Text) {
			t.Fatalf("text %q", m.Text)
		}
	})
}

func TestSplitText(t *testing.T) {
	para := strings.Repeat("a", 3000)
	text := para + "\n\n" + para + "\n\n" + "tail"
	got := SplitText(text, TelegramTextLimit)
	if len(got) != 2 || got[0] != para || got[1] != para+"\n\n"+"tail" {
		t.Fatalf("paragraph split: %d pieces %v", len(got), lens(got))
	}
	// One word longer than the limit is cut where it must be.
	long := strings.Repeat("b", 9000)
	got = SplitText(long, TelegramTextLimit)
	if len(got) != 3 || strings.Join(got, "") != long || len(got[0]) != TelegramTextLimit {
		t.Fatalf("hard split: %v", lens(got))
	}
	// Telegram counts UTF-16 units: an emoji is two.
	emo := strings.Repeat("😀", 3000)
	for _, p := range SplitText(emo, TelegramTextLimit) {
		if utf16Len(p) > TelegramTextLimit || !utf8.ValidString(p) {
			t.Fatalf("piece of %d units", utf16Len(p))
		}
	}
	if got := SplitText(" \n ", 10); len(got) != 0 {
		t.Fatalf("blank text gave %q", got)
	}
}

func lens(ss []string) []int {
	var out []int
	for _, s := range ss {
		out = append(out, len(s))
	}
	return out
}
