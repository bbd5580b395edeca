package fs

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// renderRead prints text blocks as they are and one line per image block
// naming its type and size.
func renderRead(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			err = writeTerminalText(w, b.Get("text").String())
		case "image":
			data := b.Get("data").String()
			size := len(data) / 4 * 3
			if strings.HasSuffix(data, "==") {
				size -= 2
			} else if strings.HasSuffix(data, "=") {
				size--
			}
			_, err = fmt.Fprintf(w, "[%s image, %d bytes]\n", b.Get("mimeType").String(), size)
			if p := r.Get("details.media.path").String(); p != "" && err == nil {
				_, err = fmt.Fprintf(w, "MEDIA:%s\n", p) // the stored copy (--out)
			}
		}
		return err == nil
	})
	return err
}

// renderText prints the text blocks.
func renderText(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "text" {
			err = writeLine(w, b.Get("text").String())
		}
		return err == nil
	})
	return err
}

// renderEdit prints the result text and the diff edit computed.
func renderEdit(w io.Writer, r gjson.Result) error {
	if err := renderText(w, r); err != nil {
		return err
	}
	if diff := r.Get("details.diff").String(); diff != "" {
		return writeLine(w, "\n"+sanitize(diff))
	}
	return nil
}

// renderWrite prints the result text with the byte count in good
// English; the result itself keeps the original's "1 bytes".
func renderWrite(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "text" {
			s := b.Get("text").String()
			if rest, ok := strings.CutPrefix(s, "Successfully wrote 1 bytes to "); ok {
				s = "Successfully wrote 1 byte to " + rest
			}
			err = writeLine(w, s)
		}
		return err == nil
	})
	return err
}

// writeTerminalText prints file text for a human: a binary file as a
// notice (its bytes would drive the terminal), other text with stray
// control characters made visible.
func writeTerminalText(w io.Writer, s string) error {
	if looksBinary(s) {
		_, err := fmt.Fprintf(w, "binary file (%d bytes, %s); not shown on a terminal, use --json to get it\n",
			len(s), http.DetectContentType([]byte(s)))
		return err
	}
	return writeLine(w, sanitize(s))
}

// looksBinary is true for text with a NUL, or with more than one rune in
// ten that is a control character or an invalid byte (U+FFFD after JSON).
func looksBinary(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return true
	}
	odd, all := 0, 0
	for _, r := range s {
		all++
		if r == utf8.RuneError || isControl(r) {
			odd++
		}
	}
	return odd*10 > all
}

// isControl reports the characters a terminal acts on, except the layout
// ones text uses (tab, newline).
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// sanitize replaces control characters by visible escapes (\x1b).
func sanitize(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeLine writes s and ends it with a newline when it has none.
func writeLine(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}
