package fs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestViewFuzzy(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a  \nb\t\n", "a\nb\n"},
		{"“q” ‘s’ a–b—c−d", `"q" 's' a-b-c-d`},
		{"x\u00A0y\u2003z\u3000!", "x y z !"},
		{"ﬁ ①", "fi 1"},
		{"e\u0301", "é"},
		{"win \r\nend  ", "win\nend"},
		{"  \n\u00A0\n", "\n\n"},
	} {
		if got := viewFuzzy(c.in).text; got != c.want {
			t.Errorf("viewFuzzy(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		body, needle string
		count        int
		fuzzy        bool
		span         string // body[start:end]
	}{
		{"abc", "b", 1, false, "b"},
		{"a\r\nb\r\n", "a\nb", 1, false, "a\r\nb"},
		{"x x", "x", 2, false, ""},
		{"say “hi”  \nnext", "say \"hi\"\nnext", 1, true, "say “hi”  \nnext"},
		{"say “hi”  \nnext", "say \"hi\"", 1, true, "say “hi”"},
		{"ﬁle", "ile", 0, true, ""},
		{"ﬁle", "file", 1, true, "ﬁle"},
		{"a\u00A0b a b", "a b", 1, false, "a b"},
		{"a\u00A0b a\u2009b", "a b", 2, true, ""},
	} {
		s, e, n, fz := match(c.body, c.needle)
		if n != c.count || (n > 0 && fz != c.fuzzy) {
			t.Errorf("match(%q, %q): count %d fuzzy %v, want %d %v", c.body, c.needle, n, fz, c.count, c.fuzzy)
			continue
		}
		if n == 1 && c.body[s:e] != c.span {
			t.Errorf("match(%q, %q) = %q, want %q", c.body, c.needle, c.body[s:e], c.span)
		}
	}
}

func TestLineDiffCountsFromOne(t *testing.T) {
	diff, first := lineDiff("a\n", "b\n")
	if diff != "-1 a\n+1 b" || first != 1 {
		t.Fatalf("diff %q first %d", diff, first)
	}
	if diff, first := lineDiff("same\n", "same\n"); diff != "" || first != 0 {
		t.Fatalf("no-change diff %q first %d", diff, first)
	}
}

// FuzzEdit checks the matcher: it never panics, a span is inside the text,
// the span normalises to exactly the needle, and splicing a replacement
// leaves everything outside the span byte-for-byte unchanged. Besides the
// fuzzed needle it probes a piece of the body with typographic noise added
// (the loose match must find such pieces).
func FuzzEdit(f *testing.F) {
	for _, s := range [][3]string{
		{"say “hello” — world   \nnext\n", "say \"hello\" - world\nnext", "X"},
		{"a\r\nb\r\nc", "b\nc", "B"},
		{"ﬁle ﬂow", "file", "F"},
		{"x\u00A0\u00A0\ny", "x\ny", ""},
		{"e\u0301e\u0301", "é", "E"},
		{"tab\t\t\n\tend", "tab\n\tend", "t"},
		{"\u3000lead", " lead", "L"},
		{"a\rb\r\n", "a\rb\n", "c"},
	} {
		f.Add(s[0], s[1], s[2], uint16(1), uint16(9))
	}
	noise := strings.NewReplacer(`"`, "“", "'", "’", "-", "–", " ", "\u00A0", "\n", "  \n")
	f.Fuzz(func(t *testing.T, body, needle, repl string, i, j uint16) {
		checkMatch(t, body, needle, repl)
		if len(body) > 0 {
			a, b := int(i)%len(body), int(j)%len(body)
			if a > b {
				a, b = b, a
			}
			checkMatch(t, body, body[a:b+1], repl)
			checkMatch(t, body, noise.Replace(body[a:b+1]), repl)
		}
	})
}

func checkMatch(t *testing.T, body, needle, repl string) {
	start, end, count, fuzzy := match(body, needle)
	if count != 1 {
		return
	}
	if start < 0 || end <= start || end > len(body) {
		t.Fatalf("span [%d,%d) outside %d bytes", start, end, len(body))
	}
	out := body[:start] + repl + body[end:]
	if !strings.HasPrefix(out, body[:start]) || !strings.HasSuffix(out, body[end:]) || len(out) != len(body)-(end-start)+len(repl) {
		t.Fatal("splice changed text outside the span")
	}
	if !utf8.ValidString(body) || !utf8.ValidString(needle) {
		return
	}
	got, want := viewLF(body[start:end]).text, strings.ReplaceAll(needle, "\r\n", "\n")
	if fuzzy {
		got, want = viewFuzzy(body[start:end]).text, viewFuzzy(needle).text
	}
	if got != want {
		t.Fatalf("body %q needle %q: span %q normalises to %q, needle to %q (fuzzy %v)",
			body, needle, body[start:end], got, want, fuzzy)
	}
}

// FuzzView checks the view's map: units are ordered, identity units copy
// their bytes, and the view never grows text out of nothing.
func FuzzView(f *testing.F) {
	f.Add("a “b”  \r\nc\u00A0 \nﬁ")
	f.Add("  \n\t\u3000\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, fuzzy := range []bool{false, true} {
			v := buildView(s, fuzzy)
			n, o := 0, 0
			for _, u := range v.units {
				if u.n != n || u.o < o || u.nl <= 0 || u.ol <= 0 || u.o+u.ol > len(s) {
					t.Fatalf("bad unit %+v after n=%d o=%d (fuzzy %v, %q)", u, n, o, fuzzy, s)
				}
				if u.ident && (u.nl != u.ol || v.text[u.n:u.n+u.nl] != s[u.o:u.o+u.ol]) {
					t.Fatalf("identity unit %+v differs (fuzzy %v, %q)", u, fuzzy, s)
				}
				n, o = u.n+u.nl, u.o+u.ol
			}
			if n != len(v.text) {
				t.Fatalf("units cover %d of %d bytes (fuzzy %v, %q)", n, len(v.text), fuzzy, s)
			}
		}
	})
}
