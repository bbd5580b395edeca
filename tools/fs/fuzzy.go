package fs

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// viewLF is the view used for exact matching.
func viewLF(s string) *view {
	if !strings.Contains(s, "\r\n") {
		return &view{text: s, units: []unit{{0, len(s), 0, len(s), true}}}
	}
	return buildView(s, false)
}

// viewFuzzy is the view used when the exact match fails.
func viewFuzzy(s string) *view { return buildView(s, true) }

// isBlank reports whether normalised text is whitespace only (no newline).
func isBlank(out string) bool {
	for _, r := range out {
		if r == '\n' || !unicode.IsSpace(r) {
			return false
		}
	}
	return out != ""
}

// fold maps typographic punctuation to ASCII: smart quotes, Unicode dashes
// and the special spaces NFKC leaves alone. Other bytes, invalid UTF-8
// included, are kept as they are.
func fold(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= 0x2018 && r <= 0x201B:
			b.WriteByte('\'')
		case r >= 0x201C && r <= 0x201F:
			b.WriteByte('"')
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			b.WriteByte('-')
		case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// match finds needle in s: exactly (after CRLF→LF) if it occurs there,
// otherwise in the fuzzy views. It returns the span in s and how many times
// the needle occurs in the view that decided (0: not found; >1: ambiguous,
// and the span is meaningless).
func match(s, needle string) (start, end, count int, fuzzy bool) {
	lf := viewLF(s)
	nd := strings.ReplaceAll(needle, "\r\n", "\n")
	if nd != "" {
		if c := strings.Count(lf.text, nd); c > 0 {
			if c > 1 {
				return 0, 0, c, false
			}
			i := strings.Index(lf.text, nd)
			if a, z, ok := lf.span(i, i+len(nd)); ok {
				return a, z, 1, false
			}
		}
	}
	fz := viewFuzzy(s)
	fn := viewFuzzy(needle).text
	if fn == "" {
		return 0, 0, 0, true
	}
	c := strings.Count(fz.text, fn)
	if c != 1 {
		return 0, 0, c, true
	}
	i := strings.Index(fz.text, fn)
	a, z, ok := fz.span(i, i+len(fn))
	if !ok {
		return 0, 0, 0, true
	}
	return a, z, 1, true
}
