package pdf

// operandScanner follows a content stream's tokens just far enough to count
// the operands waiting for an operator: the library parses each into a
// value on its stack, so a stream of a million numbers and no operator
// would hold them all. It keeps only its state between chunks.
type operandScanner struct {
	pending  int  // operands since the last operator
	inString int  // nesting depth inside a (literal string)
	escape   bool // after a backslash in a string
	inHex    bool
	comment  bool
	word     []byte // the regular token being read (first bytes only)
	inWord   bool
	sawLT    bool // a '<' that may start "<<" or a hex string
}

// scan feeds one chunk; false when too many operands are pending.
func (s *operandScanner) scan(p []byte) bool {
	for _, c := range p {
		switch {
		case s.inString > 0:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '(':
				s.inString++
			case c == ')':
				s.inString--
			}
			continue
		case s.inHex:
			if c == '>' {
				s.inHex = false
			}
			continue
		case s.comment:
			s.comment = c != '\n' && c != '\r'
			continue
		}
		if s.sawLT {
			s.sawLT = false
			if c != '<' { // a hex string, not a dict
				s.inHex = c != '>'
				if !s.operand() {
					return false
				}
				continue
			}
			continue // "<<"
		}
		if isDelim(c) || isSpace(c) {
			if s.inWord && !s.endWord() {
				return false
			}
			switch c {
			case '(':
				s.inString = 1
				if !s.operand() {
					return false
				}
			case '<':
				s.sawLT = true
			case '%':
				s.comment = true
			case '/': // a name starts a word
				s.inWord, s.word = true, append(s.word[:0], c)
			}
			continue
		}
		if !s.inWord {
			s.inWord, s.word = true, s.word[:0]
		}
		if len(s.word) < 8 {
			s.word = append(s.word, c)
		}
	}
	return true
}

// endWord classifies a regular token: an operator (a keyword other than
// true, false, null) releases the pending operands; anything else is one.
func (s *operandScanner) endWord() bool {
	s.inWord = false
	w := string(s.word)
	if len(w) > 0 && w[0] != '/' && !(w[0] >= '0' && w[0] <= '9') && w[0] != '+' && w[0] != '-' && w[0] != '.' &&
		w != "true" && w != "false" && w != "null" {
		s.pending = 0
		return true
	}
	return s.operand()
}

func (s *operandScanner) operand() bool {
	s.pending++
	return s.pending <= maxOperands
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}
