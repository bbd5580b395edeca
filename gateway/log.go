package gateway

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/protocol"
)

// logger writes timestamped lines to the gateway's own log file (what
// logs.tail serves) and, optionally, to a second writer (the terminal).
type logger struct {
	mu      sync.Mutex
	file    *os.File
	path    string
	extra   io.Writer
	verbose bool
	watch   logWatch // wakes logs.follow streams (logwatch.go)
}

// logPath is <state>/logs/gateway.log, or "" without a state dir.
func logPath(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "logs", "gateway.log")
}

func newLogger(path string, extra io.Writer, verbose bool) (*logger, error) {
	l := &logger{path: path, extra: extra, verbose: verbose}
	if path == "" {
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("gateway log dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("gateway log: %w", err)
	}
	l.file = f
	return l, nil
}

func (l *logger) write(level, format string, args ...any) {
	if l == nil {
		return
	}
	line := time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + " " + level + " [gateway] " +
		fmt.Sprintf(format, args...) + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		_, _ = l.file.WriteString(line)
	}
	if l.extra != nil {
		_, _ = io.WriteString(l.extra, line)
	}
	l.watch.notify()
}

func (l *logger) Infof(format string, args ...any) { l.write("info", format, args...) }
func (l *logger) Warnf(format string, args ...any) { l.write("warn", format, args...) }

// Debugf only logs with Verbose: per-connection chatter stays out of the
// file by default.
func (l *logger) Debugf(format string, args ...any) {
	if l != nil && l.verbose {
		l.write("debug", format, args...)
	}
}

// Write lets handlers' warnings (tools.Env.Warn) land in the log.
func (l *logger) Write(p []byte) (int, error) {
	l.write("warn", "%s", string(trimNL(p)))
	return len(p), nil
}

func trimNL(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

func (l *logger) close() error {
	if l == nil || l.file == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.file.Close()
	l.file = nil
	if err != nil {
		return fmt.Errorf("close gateway log: %w", err)
	}
	return nil
}

// logRequest is --verbose's per-request line: connection, method, how long
// it took and how it ended.
func (c *conn) logRequest(req *protocol.Request, start time.Time, res *protocol.Response) {
	l := c.s.log
	if l == nil || !l.verbose {
		return
	}
	outcome := "ok"
	switch {
	case res == nil:
		outcome = "no response (client gone)"
	case !res.OK && res.Error != nil:
		outcome = "error " + res.Error.Code + ": " + res.Error.Message
	}
	l.Debugf("conn %s: %s %s %s", short(c.id), req.Method, time.Since(start).Round(time.Microsecond), outcome)
}
