package mcpserve_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// session is one spawned `openclaw mcp serve` spoken to with raw
// JSON-RPC lines (what a client writes), so the figures are the server's.
type session struct {
	in   io.WriteCloser
	out  *bufio.Reader
	wait func() error
}

func spawn(b *testing.B, h home, args ...string) *session {
	c := h.cmd(args...)
	c.Stderr = io.Discard
	in, err := c.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	return &session{in: in, out: bufio.NewReaderSize(out, 1<<20), wait: c.Wait}
}

// roundTrip writes lines and reads replies until the one with id.
func (s *session) roundTrip(b *testing.B, id string, lines ...string) string {
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	for {
		l, err := s.out.ReadString('\n')
		if err != nil {
			b.Fatalf("read: %v", err)
		}
		if strings.Contains(l, `"id":`+id+`,`) {
			return l
		}
	}
}

func (s *session) close() { s.in.Close(); s.wait() }

const (
	initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	initDone = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listLine = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
)

// BenchmarkStdioSpawnToList: process start → initialize → the first
// tools/list reply (what a client waits for before it can use a tool).
func BenchmarkStdioSpawnToList(b *testing.B) {
	h := newHomeB(b)
	for b.Loop() {
		s := spawn(b, h, "--workspace", h.ws)
		if r := s.roundTrip(b, "1", initLine, initDone, listLine); !strings.Contains(r, `"tools":[`) {
			b.Fatalf("tools/list: %.200s", r)
		}
		b.StopTimer()
		s.close()
		b.StartTimer()
	}
}

// BenchmarkStdioReadCall: one `read` tools/call round trip on a running
// session.
func BenchmarkStdioReadCall(b *testing.B) {
	h := newHomeB(b)
	if err := os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte("bench\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	s := spawn(b, h, "--toolsets", "fs", "--workspace", h.ws)
	defer s.close()
	s.roundTrip(b, "0", initLine, initDone)
	n := 1
	for b.Loop() {
		n++
		id := fmt.Sprint(n)
		r := s.roundTrip(b, id, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"read","arguments":{"path":"f.txt"}}}`)
		if !strings.Contains(r, `bench\n`) {
			b.Fatalf("read: %s", r)
		}
	}
}

func newHomeB(b *testing.B) home {
	d := b.TempDir()
	h := home{dir: d, state: filepath.Join(d, ".openclaw"), ws: filepath.Join(d, "ws")}
	h.config = filepath.Join(h.state, "openclaw.json")
	for _, p := range []string{h.state, h.ws} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	return h
}
