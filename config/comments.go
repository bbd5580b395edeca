package config

// HasComments reports whether a JSON5 document has a // or /* */ comment
// outside strings: what an OpenClaw-owned write (plain JSON) would drop.
// "//" inside a string, as in a URL, is not a comment.
func HasComments(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*') {
				return true
			}
		}
	}
	return false
}
