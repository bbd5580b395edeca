package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// MaxLine caps one stdio frame (one line). A longer line is answered with
// an error and skipped; the session carries on.
const MaxLine = 16 << 20

// JSON-RPC error codes the line filter answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport is the stdio transport of `openclaw mcp serve`: the SDK's
// IOTransport behind a line filter. The SDK ends the session on the first
// frame it cannot decode; the filter answers such a line itself (a
// JSON-RPC error on w: -32700 Parse error for a line that is not JSON or
// is longer than MaxLine, -32600 Invalid Request for JSON that is not one
// JSON-RPC message) and passes only frames the SDK accepts, so a malformed
// line never ends the session. Requests are counted for the drain on
// stdin's end (Stdio).
func (s *Server) StdioTransport(ctx context.Context, r io.Reader, w io.Writer) mcp.Transport {
	lw := &lockedWriter{w: w}
	f := &lineFilter{br: bufio.NewReaderSize(r, 64<<10), reply: lw, max: MaxLine}
	in, out := s.Stdio(ctx, f, lw)
	// The filter already caps a line; the SDK's own cap must not be lower.
	return &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: MaxLine + 2}
}

// lockedWriter serialises the SDK's writes and the filter's replies, so a
// reply never lands inside another message's bytes (each write is one
// whole line).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter reads newline-delimited frames from br and yields only those
// checkLine accepts, each as one line; it answers the others on reply.
type lineFilter struct {
	br    *bufio.Reader
	reply io.Writer
	max   int
	out   []byte // the accepted frame not yet read
	err   error  // br's error, returned once out is drained
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, long, err := readLine(f.br, f.max)
		f.err = err
		if long {
			if werr := f.answer(errorLine(nil, codeParseError, "Parse error: line longer than "+strconv.Itoa(f.max)+" bytes")); werr != nil {
				return 0, werr
			}
			continue
		}
		frame, reply := checkLine(line)
		if reply != nil {
			if werr := f.answer(reply); werr != nil {
				return 0, werr
			}
			continue
		}
		f.out = frame
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

func (f *lineFilter) answer(line []byte) error {
	if _, err := f.reply.Write(line); err != nil {
		return fmt.Errorf("mcp: answering a malformed line: %w", err)
	}
	return nil
}

// readLine reads one line (without its '\n') of at most max bytes. A
// longer line is consumed to its end and reported as long, its bytes
// dropped. At the input's end a last unterminated line is returned with
// the error.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		content := bytes.TrimSuffix(chunk, []byte{'\n'})
		if !long {
			if len(line)+len(content) > max {
				long, line = true, nil
			} else {
				line = append(line, content...)
			}
		}
		switch {
		case err == nil:
			return line, long, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, long, err
		}
	}
}

// checkLine decides one line: a frame to pass to the SDK (the trimmed line
// plus '\n'), an error reply to write instead, or neither (a blank line,
// skipped as the SDK's decoder skips whitespace).
func checkLine(line []byte) (frame, reply []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !json.Valid(line) {
		return nil, errorLine(nil, codeParseError, "Parse error")
	}
	if line[0] == '[' {
		// JSON-RPC batches: MCP removed them in 2025-06-18, and the SDK
		// ends the session on several batch mistakes; no client in use
		// sends them.
		return nil, errorLine(nil, codeInvalidRequest, "Invalid Request: batches are not supported")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return nil, errorLine(requestID(line), codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	return append(line, '\n'), nil
}

// requestID is the line's id when it is one JSON-RPC allows (a string or
// a number), else nil (answered as null).
func requestID(line []byte) json.RawMessage {
	id := gjson.GetBytes(line, "id")
	switch id.Type {
	case gjson.String, gjson.Number:
		if json.Valid([]byte(id.Raw)) {
			return json.RawMessage(id.Raw)
		}
	}
	return nil
}

// errorLine is one JSON-RPC error response line.
func errorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil { // cannot happen: every field is plain
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n")
	}
	return append(b, '\n')
}
