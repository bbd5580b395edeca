package gateway

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"
)

// `openclaw tasks` prints a borderless table, the header as given, two
// spaces between columns, sized by display width (the kind 絵文字 takes
// six columns, the status ☀️ two).
func TestRenderTasksTable(t *testing.T) {
	v := gjson.Parse(`{"tasks":[
		{"id":"t1","kind":"絵文字","status":"☀️","startedAt":"10:00","owner":"me"},
		{"id":"t22","kind":"exec","status":"done","startedAt":"10:01","owner":"you"}]}`)
	var buf bytes.Buffer
	if err := renderTasks(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := "ID   KIND    STATUS  STARTED  OWNER\n" +
		"t1   絵文字  ☀️      10:00    me\n" +
		"t22  exec    done    10:01    you\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}
