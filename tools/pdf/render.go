package pdf

import (
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// render prints the text block as it is: the extracted text and the notes.
func render(w io.Writer, res gjson.Result) error {
	_, err := fmt.Fprintln(w, res.Get("content.0.text").String())
	return err
}
