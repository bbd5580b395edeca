package policy

import "strings"

// DisplayArgv is the original's display form of an argv, the one a node
// host compares a system.run's rawCommand with and an approval shows:
// arguments with whitespace or a double quote are double-quoted with
// inner quotes escaped; an empty one is "". The gateway sends a plain
// command's rawCommand in this form, so the node's check and the
// operator's approval read the same text.
func DisplayArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case a == "":
			parts[i] = `""`
		case !strings.ContainsAny(a, " \t\n\r\v\f\"") && !strings.ContainsFunc(a, isUnicodeSpace):
			parts[i] = a
		default:
			parts[i] = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
	}
	return strings.Join(parts, " ")
}

func isUnicodeSpace(r rune) bool {
	return r == '\u00a0' || r == '\u2028' || r == '\u2029' || r == '\ufeff' || (r >= '\u2000' && r <= '\u200a') || r == '\u3000'
}
