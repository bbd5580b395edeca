package pdf

import (
	"unicode/utf16"

	lpdf "github.com/ledongthuc/pdf"
)

// maxUnicodeDst bounds one code's text in a ToUnicode map (the spec's
// 512 bytes of UTF-16), so a map cannot expand one code without bound.
const maxUnicodeDst = 512

// toUnicode is a font's /ToUnicode CMap: glyph codes to text. The library
// reads it only when the font has no /Encoding or an Identity-H one, but
// the map takes priority for extraction whatever the encoding (Chromium's
// Type3 fonts have a /Differences encoding of glyph names like /g61A0 and
// the real text in /ToUnicode); the library's own parser is not exported.
type toUnicode struct {
	space  [4][][2]string // codespace ranges by code length
	chars  map[string]string
	ranges []unicodeRange
}

type unicodeRange struct {
	lo, hi string
	dst    string   // first code's text, UTF-16BE, the rest counting up
	array  []string // or one text per code
}

// readToUnicode parses v; nil when it is not a usable map. scratch is a
// dictionary value the CMap's PostScript may "begin" and "def" into (the
// library cannot make one for us): a freshly resolved copy, used for
// nothing else.
func readToUnicode(v, scratch lpdf.Value) (m *toUnicode) {
	if v.Kind() != lpdf.Stream {
		return nil
	}
	m = &toUnicode{chars: map[string]string{}}
	var args []lpdf.Value
	lpdf.Interpret(v, func(stk *lpdf.Stack, op string) {
		args = args[:0]
		for stk.Len() > 0 {
			args = append(args, stk.Pop())
		}
		for i, j := 0, len(args)-1; i < j; i, j = i+1, j-1 {
			args[i], args[j] = args[j], args[i]
		}
		switch op {
		case "findresource": // /CIDInit /ProcSet findresource begin
			stk.Push(scratch)
		case "defineresource": // key value category defineresource pop
			if len(args) == 3 {
				stk.Push(args[1])
			}
		case "endcodespacerange":
			for i := 0; i+1 < len(args); i += 2 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if n := len(lo); n >= 1 && n <= 4 && len(hi) == n {
					m.space[n-1] = append(m.space[n-1], [2]string{lo, hi})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(args); i += 2 {
				if src := args[i].RawString(); src != "" && args[i+1].Kind() == lpdf.String {
					m.chars[src] = clip(args[i+1].RawString())
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(args); i += 3 {
				r := unicodeRange{lo: args[i].RawString(), hi: args[i+1].RawString()}
				if r.lo == "" || len(r.lo) != len(r.hi) {
					continue
				}
				switch d := args[i+2]; d.Kind() {
				case lpdf.String:
					r.dst = clip(d.RawString())
				case lpdf.Array:
					for k := 0; k < d.Len() && k < 256; k++ {
						r.array = append(r.array, clip(d.Index(k).RawString()))
					}
				default:
					continue
				}
				m.ranges = append(m.ranges, r)
			}
		}
	})
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	return m
}

func clip(s string) string { return s[:min(len(s), maxUnicodeDst)&^1] }

// Decode is the text of raw (for lpdf.TextEncoding).
func (m *toUnicode) Decode(raw string) string {
	var out []byte
	m.each(raw, func(s string) { out = append(out, s...) })
	return string(out)
}

// each calls fn with the text of each code of raw in turn.
func (m *toUnicode) each(raw string, fn func(string)) {
	for len(raw) > 0 {
		n := m.codeLen(raw)
		code := raw[:n]
		raw = raw[n:]
		fn(unradical(m.lookup(code)))
	}
}

// codeLen is the length of the code that starts raw: the codespace range
// it falls in, else the shortest length the map uses (else one byte).
func (m *toUnicode) codeLen(raw string) int {
	fallback := 0
	for n := 1; n <= 4 && n <= len(raw); n++ {
		if fallback == 0 && len(m.space[n-1]) > 0 {
			fallback = n
		}
		for _, sp := range m.space[n-1] {
			if sp[0] <= raw[:n] && raw[:n] <= sp[1] {
				return n
			}
		}
	}
	if fallback == 0 {
		for src := range m.chars {
			fallback = len(src)
			break
		}
		if fallback == 0 && len(m.ranges) > 0 {
			fallback = len(m.ranges[0].lo)
		}
	}
	return max(1, min(fallback, len(raw)))
}

func (m *toUnicode) lookup(code string) string {
	if s, ok := m.chars[code]; ok {
		return utf16Text(s, 0)
	}
	for _, r := range m.ranges {
		if len(r.lo) != len(code) || code < r.lo || code > r.hi {
			continue
		}
		off := int(code[len(code)-1]) - int(r.lo[len(r.lo)-1])
		if r.array != nil {
			if off >= 0 && off < len(r.array) {
				return utf16Text(r.array[off], 0)
			}
			return ""
		}
		return utf16Text(r.dst, off)
	}
	return string(rune(0xFFFD))
}

// utf16Text decodes UTF-16BE text, adding off to its last unit (a bfrange
// counts up from its first code's text).
func utf16Text(s string, off int) string {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if off != 0 && len(u) > 0 {
		u[len(u)-1] += uint16(off)
	}
	return string(utf16.Decode(u))
}
