package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/titanous/json5"
)

// maxNesting bounds how deeply arrays and objects may nest in a config
// file; the JSON5 decoder recurses once per level.
const maxNesting = 1000

// SyntaxError is a JSON5 parse error with a 1-based line and column.
type SyntaxError struct {
	Line, Column int
	Offset       int // byte offset of the offending position
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// ParseJSON5 parses a JSON5 document (comments, trailing commas, unquoted
// keys, single quotes, hex numbers, Infinity/NaN). Objects decode to
// map[string]any, arrays to []any, numbers to float64. Non-finite numbers
// are returned as is; Load rejects them. It never panics.
func ParseJSON5(data []byte) (v any, err error) {
	off, ok, unclosed := tooDeep(data)
	if !ok {
		return nil, syntaxErrorAt(data, off, fmt.Sprintf("nesting deeper than %d levels", maxNesting))
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("json5: %v", r)
		}
	}()
	if err := json5.Unmarshal(data, &v); err != nil {
		var se *json5.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset) - 1
			if se.Error() == "unexpected end of JSON input" {
				off = int(se.Offset)
			}
			return nil, syntaxErrorAt(data, off, se.Error())
		}
		var te *json5.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, syntaxErrorAt(data, int(te.Offset)-1, "number out of range: "+strings.TrimPrefix(te.Value, "number "))
		}
		return nil, err
	}
	// The decoder accepts a document that ends inside a block comment or
	// on a lone slash after the value; JSON5 (and OpenClaw) refuse it.
	if unclosed {
		return nil, syntaxErrorAt(data, len(data), "unexpected end of JSON input (unclosed comment)")
	}
	return v, nil
}

func syntaxErrorAt(data []byte, off int, msg string) *SyntaxError {
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	line, col := 1, 1
	for i := 0; i < off; {
		r, size := utf8.DecodeRune(data[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += size
	}
	return &SyntaxError{Line: line, Column: col, Offset: off, Msg: msg}
}

// tooDeep scans for [ and { outside strings and comments and reports the
// offset where nesting first exceeds maxNesting; unclosed reports that
// data ends inside a block comment or on a slash that opens nothing.
func tooDeep(data []byte) (off int, ok, unclosed bool) {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			} else if i+1 < len(data) && data[i+1] == '*' {
				i += 2
				for i+1 < len(data) && !(data[i] == '*' && data[i+1] == '/') {
					i++
				}
				unclosed = i+1 >= len(data)
				i++
			} else if i+1 == len(data) {
				unclosed = true
			}
		case '[', '{':
			depth++
			if depth > maxNesting {
				return i, false, false
			}
		case ']', '}':
			depth--
		}
	}
	return 0, true, unclosed
}
