package exectool

import (
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// A session that stopped reading its stdin: writes bigger than the pipe
// (or PTY) buffer fail with a timeout (exit 124) once their deadline
// passes, and poll and send-keys keep answering meanwhile (issue 17 item
// 12: the write held the stdin lock with no deadline, and poll took it).
func TestBlockedStdinWriteNeverWedgesTheSession(t *testing.T) {
	for _, pty := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "pty"}[pty], func(t *testing.T) {
			old := stdinWriteTimeout
			stdinWriteTimeout = 300 * time.Millisecond
			t.Cleanup(func() { stdinWriteTimeout = old })
			env, _ := gatewayEnv(t)
			params := `{"command":"echo ready; sleep 600","background":true}`
			if pty {
				params = `{"command":"stty -echo -icanon; echo ready; sleep 600","background":true,"pty":true}`
			}
			m, err := invoke(t, env, params)
			if err != nil {
				t.Fatal(err)
			}
			id := details(m)["sessionId"].(string)
			t.Cleanup(func() { procCall(t, env, "kill", `{"sessionId":"`+id+`"}`) })
			pollUntil(t, env, id, "ready")

			big := strings.Repeat("x", 100<<10)
			writes := make(chan error, 3)
			go func() {
				for range 3 {
					_, err := procCall(t, env, "write", `{"sessionId":"`+id+`","data":"`+big+`"}`)
					writes <- err
				}
			}()
			// Poll and send-keys answer while the writes are stuck.
			answered := make(chan error, 1)
			go func() {
				for range 5 {
					if _, err := procCall(t, env, "poll", `{"sessionId":"`+id+`"}`); err != nil {
						answered <- err
						return
					}
					if _, err := procCall(t, env, "send-keys", `{"sessionId":"`+id+`","keys":["Enter"]}`); err != nil &&
						tools.AsError(err).Code != tools.CodeTimeout {
						answered <- err
						return
					}
				}
				answered <- nil
			}()
			select {
			case err := <-answered:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("poll/send-keys hung behind a blocked stdin write")
			}
			timedOut := 0
			for range 3 {
				select {
				case err := <-writes:
					if tools.AsError(err).Code == tools.CodeTimeout {
						timedOut++
					}
				case <-time.After(60 * time.Second):
					t.Fatal("a stdin write never returned")
				}
			}
			if timedOut == 0 {
				t.Fatal("no 100 KB write to a non-reading session timed out")
			}
		})
	}
}
