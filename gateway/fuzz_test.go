package gateway

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
)

// FuzzServerFrame feeds arbitrary bytes through a connection's frame
// handler, before and after the handshake. It must never panic, and must
// always leave the connection in a sane state.
func FuzzServerFrame(f *testing.F) {
	seeds := []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"type":"req"}`,
		`{"type":"req","id":"1","method":"connect","params":{}}`,
		`{"type":"req","id":"1","method":"connect","params":{"minProtocol":4,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli"},"auth":{"token":"test-token-123"}}}`,
		`{"type":"req","id":"1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"role":"node","client":{"id":"node-host","version":"1","platform":"linux","mode":"node"},"device":{"id":"x","publicKey":"AAAA","signature":"x","signedAt":1,"nonce":"n"},"auth":{"token":"test-token-123"}}}`,
		`{"type":"req","id":"2","method":"health","params":{"probe":true}}`,
		`{"type":"req","id":"3","method":"logs.tail","params":{"cursor":-1}}`,
		`{"type":"req","id":"4","method":"config.get"}`,
		`{"type":"req","id":"5","method":"tools.invoke","params":{"name":"test_echo","args":{"text":1}}}`,
		`{"type":"req","id":"6","method":"test.panic"}`,
		`{"type":"req","id":7,"method":"health"}`,
		`{"type":"req","id":"8","method":"health","traceparent":"` + string(make([]byte, 200)) + `"}`,
		`{"type":"req","id":"9","method":"nope","extra":1}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false, false)
		f.Add([]byte(s), false, true)
	}
	f.Add([]byte{0xff, 0x00}, true, true)

	dir := f.TempDir()
	s, err := New(Options{
		Token: testToken, Version: "fuzz", ConfigPollInterval: -1,
		Paths:  config.Paths{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json")},
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, binary, authed bool) {
		c := newConn(s, nil, "127.0.0.1", true)
		if authed {
			c.sess = &session{role: protocol.RoleOperator, scopes: []string{protocol.ScopeRead}, connectedAt: nowMs()}
			c.state = stateReady
			c.authed.Store(true)
		}
		mt := websocket.TextMessage
		if binary {
			mt = websocket.BinaryMessage
		}
		c.handleFrame(mt, data)
		done := make(chan struct{})
		go func() { c.reqWG.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.cancel() // a blocking test method: cancel it
			<-done
		}
		c.cancel()
		s.forget(c)
		// Everything queued must be a non-empty frame or the close marker.
		for _, b := range c.out.frames {
			if len(b) == 0 {
				t.Fatalf("empty frame queued")
			}
		}
	})
}
