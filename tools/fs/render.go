package fs

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// renderRead prints text blocks as they are and one line per image block
// naming its type and size.
func renderRead(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			err = writeLine(w, b.Get("text").String())
		case "image":
			data := b.Get("data").String()
			size := len(data) / 4 * 3
			if strings.HasSuffix(data, "==") {
				size -= 2
			} else if strings.HasSuffix(data, "=") {
				size--
			}
			_, err = fmt.Fprintf(w, "[%s image, %d bytes]\n", b.Get("mimeType").String(), size)
		}
		return err == nil
	})
	return err
}

// renderText prints the text blocks (write and edit results).
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

// writeLine writes s and ends it with a newline when it has none.
func writeLine(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}
