package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// sdkReads reports whether the SDK's own stdio connection decodes frame
// as one message (the filter's promise for every frame it passes).
func sdkReads(t *testing.T, frame []byte) error {
	t.Helper()
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(bytes.NewReader(frame)), Writer: nopWriteCloser{io.Discard}, MaxLineLength: MaxLine + 2}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.Read(context.Background())
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestCheckLine(t *testing.T) {
	for _, c := range []struct {
		line string
		code int64  // 0: passed
		id   string // the reply's raw id
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ""},
		{`  {"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r", 0, ""},
		{`not json`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":7,"method":"x"} {"jsonrpc":"2.0"}`, -32700, "null"},
		{`{"jsonrpc":"1.0","id":7,"method":"x"}`, -32600, "7"},
		{`{"jsonrpc":"2.0","id":"a","method":3}`, -32600, `"a"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null"},
		{`[]`, -32600, "null"},
		{`42`, -32600, "null"},
	} {
		frame, reply := checkLine([]byte(c.line))
		if c.code == 0 {
			if reply != nil || frame == nil {
				t.Errorf("%q: reply %s, want it passed", c.line, reply)
				continue
			}
			if err := sdkReads(t, frame); err != nil {
				t.Errorf("%q: passed but the SDK refuses it: %v", c.line, err)
			}
			continue
		}
		if frame != nil || reply == nil {
			t.Errorf("%q: passed, want error %d", c.line, c.code)
			continue
		}
		r := gjson.ParseBytes(reply)
		if r.Get("error.code").Int() != c.code || r.Get("id").Raw != c.id || r.Get("jsonrpc").String() != "2.0" || !bytes.HasSuffix(reply, []byte("\n")) {
			t.Errorf("%q: reply %s, want code %d id %s", c.line, reply, c.code, c.id)
		}
	}
	if f, r := checkLine([]byte(" \t")); f != nil || r != nil {
		t.Errorf("blank line: %q %q, want it skipped", f, r)
	}
}

// The filter over a stream: good frames pass in order, each bad line gets
// exactly one reply, an over-long line is dropped whole and answered, and
// the last line needs no newline.
func TestLineFilterStream(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":9,"method":"x","params":{"p":"` + strings.Repeat("a", 300) + `"}}`
	in := "garbage\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + long + "\n\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`
	var replies bytes.Buffer
	f := &lineFilter{br: bufio.NewReaderSize(strings.NewReader(in), 16), reply: &replies, max: 200}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	if string(got) != want {
		t.Errorf("passed %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSuffix(replies.String(), "\n"), "\n")
	if len(lines) != 2 || gjson.Get(lines[0], "error.code").Int() != -32700 ||
		!strings.Contains(gjson.Get(lines[1], "error.message").String(), "longer than 200 bytes") {
		t.Errorf("replies %q", replies.String())
	}
}

// FuzzCheckLine: every line is either passed as a frame the SDK's own
// stdio connection reads without error (so it cannot end the session), or
// answered with one well-formed JSON-RPC error line; never both, never
// neither unless the line is blank.
func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`not json`, `{"jsonrpc":"2.0","id":1.5e3,"method":"m"}`, `"\ud800"`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line at a time; readLine splits the stream
		}
		frame, reply := checkLine(line)
		switch {
		case frame != nil && reply != nil:
			t.Fatalf("both a frame and a reply for %q", line)
		case frame == nil && reply == nil:
			if len(bytes.TrimSpace(line)) != 0 {
				t.Fatalf("non-blank line %q neither passed nor answered", line)
			}
		case frame != nil:
			if err := sdkReads(t, frame); err != nil {
				t.Fatalf("passed %q but the SDK's connection fails on it: %v", frame, err)
			}
		default:
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if !bytes.HasSuffix(reply, []byte("\n")) || bytes.Count(reply, []byte("\n")) != 1 {
				t.Fatalf("reply %q is not one line", reply)
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.ID == nil ||
				(r.Error.Code != codeParseError && r.Error.Code != codeInvalidRequest) {
				t.Fatalf("reply %q for %q is not a JSON-RPC error: %v", reply, line, err)
			}
		}
	})
}
