package exectool

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// renderExec prints the result text for a human (the JSON is for scripts).
func renderExec(w io.Writer, res gjson.Result) error {
	text := res.Get("content.0.text").String()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(w, text)
	return err
}
