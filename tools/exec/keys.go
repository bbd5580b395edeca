package exectool

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// namedKeys are the tmux-style key names send-keys accepts (spec §2.1).
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "tab": "\t", "space": " ", "escape": "\x1b", "esc": "\x1b",
	"bspace": "\x7f", "backspace": "\x7f", "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "ppage": "\x1b[5~", "pagedown": "\x1b[6~", "npage": "\x1b[6~",
	"insert": "\x1b[2~", "ic": "\x1b[2~", "delete": "\x1b[3~", "dc": "\x1b[3~", "btab": "\x1b[Z",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS", "f5": "\x1b[15~", "f6": "\x1b[17~",
	"f7": "\x1b[18~", "f8": "\x1b[19~", "f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// encodeKeys turns literal text, hex bytes and key tokens (in that order)
// into the bytes to send.
func encodeKeys(literal string, hexes, keys []string) ([]byte, error) {
	out := []byte(literal)
	for _, h := range hexes {
		b, err := hex.DecodeString(strings.TrimPrefix(strings.ReplaceAll(h, " ", ""), "0x"))
		if err != nil {
			return nil, fmt.Errorf("invalid hex %q", h)
		}
		out = append(out, b...)
	}
	for _, k := range keys {
		b, err := keyBytes(k)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// keyBytes encodes one token: a name (Enter, Up, F5), C-x or ^X (control),
// M-x (escape prefix), kp0-kp9, or a single character.
func keyBytes(k string) ([]byte, error) {
	if s, ok := namedKeys[strings.ToLower(k)]; ok {
		return []byte(s), nil
	}
	switch {
	case (strings.HasPrefix(k, "C-") || strings.HasPrefix(k, "c-")) && len(k) == 3, strings.HasPrefix(k, "^") && len(k) == 2:
		c := k[len(k)-1]
		if c == '?' {
			return []byte{0x7f}, nil
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < '@' || c > '_' {
			return nil, fmt.Errorf("invalid control key %q", k)
		}
		return []byte{c - '@'}, nil
	case (strings.HasPrefix(k, "M-") || strings.HasPrefix(k, "m-")) && len(k) > 2:
		rest, err := keyBytes(k[2:])
		if err != nil {
			return nil, err
		}
		return append([]byte{0x1b}, rest...), nil
	case strings.HasPrefix(strings.ToLower(k), "kp") && len(k) == 3 && k[2] >= '0' && k[2] <= '9':
		return []byte{k[2]}, nil
	case len([]rune(k)) == 1:
		return []byte(k), nil
	}
	return nil, fmt.Errorf("unknown key %q", k)
}
