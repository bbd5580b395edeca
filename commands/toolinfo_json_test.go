package commands

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The hand-written encoder must stay byte-identical to encoding/json, for
// the real tool list and for strings that need escaping.
func TestEncodeToolListMatchesEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", `quote " and \ slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f",
		"<b>&amp;</b>", "caf\u00e9 \u2603 \U0001F600", "line\u2028para\u2029", "bad \xff\xfe utf8", "\x7f del"}
	rows := listTools()
	if len(rows) == 0 {
		t.Fatalf("listTools returned %d tools", len(rows))
	}
	for _, s := range tricky {
		rows = append(rows, toolInfo{Name: s, Command: s, Groups: []string{s, s}, Where: s, Actions: []string{s}, Summary: s},
			toolInfo{Name: s, Groups: []string{}, Profiles: nil})
	}
	want, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeToolList(rows); !bytes.Equal(got, want) {
		t.Fatalf("encodeToolList differs from encoding/json:\n got %s\nwant %s", got, want)
	}
	if got, want := encodeToolList(nil), []byte("[]"); !bytes.Equal(got, want) {
		t.Fatalf("empty list: got %s want %s", got, want)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "<&>", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}
