package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// These pin log.go lines that a one-line mutation (`make mutate`) could
// change with the other tests still passing (issue 17, item 20).

// Debug lines and per-request lines appear only with Verbose; close closes
// the file (a later line reaches the extra writer only), and a nil logger
// is safe to use.
func TestLoggerVerboseAndClose(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "logs", "gateway.log")
		var term bytes.Buffer
		l, err := newLogger(path, &term, verbose)
		if err != nil {
			t.Fatal(err)
		}
		l.Debugf("chatter %d", 1)
		s := &Server{log: l}
		c := &conn{s: s, id: "0123456789abcdef"}
		c.logRequest(&protocol.Request{Method: "health"}, time.Now(), nil)
		c.logRequest(&protocol.Request{Method: "status"}, time.Now(), errorResponse("1", protocol.NewError(protocol.ErrForbidden, "nope", nil)))
		l.Infof("before close")
		if err := l.close(); err != nil {
			t.Fatal(err)
		}
		l.Infof("after close")
		b, _ := os.ReadFile(path)
		log := string(b)
		for _, want := range []string{"chatter 1", "health", "no response (client gone)", "error FORBIDDEN: nope"} {
			if strings.Contains(log, want) != verbose {
				t.Errorf("verbose=%v: %q in the log = %v\n%s", verbose, want, !verbose, log)
			}
		}
		if !strings.Contains(log, "before close") || strings.Contains(log, "after close") {
			t.Errorf("close did not close the file:\n%s", log)
		}
		if !strings.Contains(term.String(), "after close") {
			t.Errorf("the extra writer lost a line after close: %q", term.String())
		}
	}
	var nilLog *logger
	nilLog.Debugf("x")
	nilLog.Infof("x")
	if err := nilLog.close(); err != nil {
		t.Error(err)
	}
}
