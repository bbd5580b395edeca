package browser

import (
	"strconv"
	"strings"
)

// yamlValue quotes a text value the way the original prints it: plain
// when YAML would read it back as the same string, else double-quoted
// with escapes (so "2", "true", "- x" or "a: b" stay text).
func yamlValue(s string) string {
	if !yamlNeedsQuotes(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			b.WriteString(`\x`)
			h := strconv.FormatInt(int64(r), 16)
			if len(h) < 2 {
				b.WriteByte('0')
			}
			b.WriteString(h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlNeedsQuotes says whether a plain YAML scalar would not read back as
// s: empty, edge spaces, control characters, indicators, ": " or " #",
// or a number, boolean or null.
func yamlNeedsQuotes(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for _, r := range s {
		if (r <= 0x08) || r == 0x0b || r == 0x0c || (r >= 0x0e && r <= 0x1f) || (r >= 0x7f && r <= 0x9f) || r == '\n' || r == '\r' {
			return true
		}
	}
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "[") || strings.ContainsAny(s[:1], "&*],?!>|@\"'#%") {
		return true
	}
	if strings.ContainsAny(s, "{}`") || strings.Contains(s, " #") || strings.Contains(s, "\t#") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == len(s)-1 || s[i+1] == ' ' || s[i+1] == '\t') {
			return true
		}
	}
	if isJSNumber(s) {
		return true
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null":
		return true
	}
	return false
}

// isJSNumber says whether JavaScript's Number(s) is not NaN (the original's
// test): decimal, hex/octal/binary literals, Infinity, with edge spaces.
func isJSNumber(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" {
		return true
	}
	u := strings.TrimLeft(t, "+-")
	if len(t)-len(u) > 1 {
		return false
	}
	if u == "Infinity" {
		return true
	}
	if len(u) > 2 && u[0] == '0' && strings.ContainsRune("xXoObB", rune(u[1])) && len(t) == len(u) {
		_, err := strconv.ParseInt(u[2:], map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[u[1]], 64)
		return err == nil
	}
	for _, c := range u {
		if !strings.ContainsRune("0123456789.eE+-", c) {
			return false
		}
	}
	_, err := strconv.ParseFloat(t, 64)
	return err == nil
}
