package commands

import (
	"unicode/utf8"
)

// encodeToolList writes the `tools list` rows as encoding/json would, byte
// for byte, without reflection: building json's encoder for toolInfo was
// the largest single cost of `openclaw tools list --json` after start-up.
func encodeToolList(rows []toolInfo) []byte {
	b := make([]byte, 0, 128*len(rows)+2)
	b = append(b, '[')
	for i, t := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, t.Name)
		b = append(b, `,"command":`...)
		b = appendJSONString(b, t.Command)
		b = append(b, `,"groups":`...)
		b = appendJSONStrings(b, t.Groups)
		b = append(b, `,"profiles":`...)
		b = appendJSONStrings(b, t.Profiles)
		b = append(b, `,"where":`...)
		b = appendJSONString(b, t.Where)
		if len(t.Actions) > 0 {
			b = append(b, `,"actions":`...)
			b = appendJSONStrings(b, t.Actions)
		}
		b = append(b, `,"summary":`...)
		b = appendJSONString(b, t.Summary)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONStrings writes a string array; nil is null, as encoding/json.
func appendJSONStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString quotes s the way encoding/json does by default: HTML
// characters, U+2028/U+2029 and control characters escaped, invalid UTF-8
// replaced by U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
