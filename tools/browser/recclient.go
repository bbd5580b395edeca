package browser

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// The CLI side of the recorder (see recorder.go): find or launch it, and
// make one request per connection.

// recSock is the recorder's socket: in the profile dir, or under the temp
// dir when that path is too long for a Unix socket.
func (p *profile) recSock() string {
	s := filepath.Join(p.Dir, "recorder.sock")
	if len(s) < 100 {
		return s
	}
	h := sha256.Sum256([]byte(p.Dir))
	return filepath.Join(os.TempDir(), "openclaw-rec-"+hex.EncodeToString(h[:8])+".sock")
}

type recClient struct{ sock string }

// call sends one request and decodes the one-line answer into out.
func (c *recClient) call(ctx context.Context, req recRequest, out any) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.sock)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	b, _ := json.Marshal(req)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return err
	}
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 64<<10), recorderIOLimit)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("browser recorder hung up")
	}
	var e struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if json.Unmarshal(sc.Bytes(), &e) == nil && e.Error != "" {
		code := tools.CodeFailed
		if e.Code == "NOT_FOUND" {
			code = tools.CodeNotFound
		}
		return tools.Errorf(code, "%s", e.Error)
	}
	return json.Unmarshal(sc.Bytes(), out)
}

// ping reports whether a recorder answers on the socket.
func (c *recClient) ping(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var v map[string]any
	return c.call(ctx, recRequest{Op: "mark"}, &v) == nil
}

// recorder returns the profile's recorder, launching one when none
// answers (a browser started by an older binary, or a recorder that
// died); nil when it cannot run, and the call goes on without capture.
func (s *session) recorder(ctx context.Context) *recClient {
	if s.rec != nil {
		return s.rec
	}
	c := &recClient{sock: s.p.recSock()}
	if !c.ping(ctx) {
		if err := s.p.spawnRecorder(ctx, s.ws); err != nil {
			return nil
		}
	}
	s.rec = c
	return c
}

// spawnRecorder launches the detached recorder for the browser at ws and
// waits (bounded) until it answers.
func (p *profile) spawnRecorder(ctx context.Context, ws string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	g := p.conf.SSRF.guard()
	spec, _ := json.Marshal(recorderSpec{Dir: p.Dir, StateDir: filepath.Dir(filepath.Dir(p.Dir)), WS: ws, Sock: p.recSock(), Guard: &g})
	if err := os.MkdirAll(p.Dir, 0o700); err != nil { // attach-only profiles have no dir yet
		return err
	}
	logf, err := os.OpenFile(filepath.Join(p.Dir, "recorder.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(exe, tools.EntrypointArg(recorderEntry))
	cmd.Env = filterProxyEnv(os.Environ())
	cmd.Stdin = bytes.NewReader(spec)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("browser recorder: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	c := &recClient{sock: p.recSock()}
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if c.ping(ctx) {
			return nil
		}
		select {
		case <-exited:
			if c.ping(ctx) { // another recorder won the race
				return nil
			}
			return fmt.Errorf("browser recorder exited (see %s)", filepath.Join(p.Dir, "recorder.log"))
		case <-deadline.C:
			return fmt.Errorf("browser recorder did not answer")
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// quitRecorder asks the profile's recorder to end (stop, reset).
func (p *profile) quitRecorder(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var v map[string]any
	_ = (&recClient{sock: p.recSock()}).call(ctx, recRequest{Op: "quit"}, &v)
}

// needRecorder is the recorder or an error naming what needed it.
func (s *session) needRecorder(ctx context.Context, what string) (*recClient, error) {
	if c := s.recorder(ctx); c != nil {
		return c, nil
	}
	return nil, tools.Errorf(tools.CodeFailed, "%s needs the browser recorder, which could not start (see %s)", what, filepath.Join(s.p.Dir, "recorder.log"))
}

// mark is the recorder and its event-log position before an operation;
// nil when no recorder runs.
func (s *session) mark(ctx context.Context) (*recClient, int64) {
	rec := s.recorder(ctx)
	if rec == nil {
		return nil, 0
	}
	if s.told != nil { // the guard's answer carried the position (tellGuard)
		return rec, *s.told.Seq
	}
	var m struct {
		Seq int64 `json:"seq"`
	}
	if rec.call(ctx, recRequest{Op: "mark"}, &m) != nil {
		return nil, 0
	}
	return rec, m.Seq
}

// effects is what happened on the tab since the mark, after waiting (up
// to settleMs) for what was started to finish.
func (rec *recClient) effects(ctx context.Context, target string, seq int64, settleMs int, expectDownload bool, marker string) map[string]any {
	if rec == nil {
		return nil
	}
	var sum map[string]any
	if rec.call(ctx, recRequest{Op: "settle", TargetID: target, Seq: seq, TimeoutMs: settleMs, ExpectDownload: expectDownload, SyncToken: marker}, &sum) != nil {
		return nil
	}
	return sum
}

// enforceGuard makes sure the recorder enforces the profile's current
// browser.ssrfPolicy on every request the browser makes (guard.go) before
// the call acts. With the guard on it fails closed: no recorder, no call.
// With everything allowed it only tells a running recorder so (a policy
// relaxed since it started), and never launches one for that.
// tellGuard gives a running recorder the guard; false when none answered
// (enforceGuard then starts one, or says why it cannot).
func (s *session) tellGuard(ctx context.Context) bool {
	g := s.p.conf.SSRF.guard()
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c := &recClient{sock: s.p.recSock()}
	var v guardAnswer
	if c.call(cctx, recRequest{Op: "guard", Guard: &g}, &v) != nil {
		return false
	}
	s.rec = c
	if v.Seq != nil && v.Pending != nil { // a recorder of an older binary answers ok only
		s.told = &v
	}
	return true
}

// guardAnswer is the recorder's answer to guard: with the event log's
// position and the unanswered dialogs by tab, which spare the call the
// mark and pending round trips (the position is taken before the call
// attaches to its tab, so it precedes whatever the call does).
type guardAnswer struct {
	Seq     *int64                    `json:"seq"`
	Pending map[string]map[string]any `json:"pending"`
}

func (s *session) enforceGuard(ctx context.Context) error {
	g := s.p.conf.SSRF.guard()
	var v map[string]any
	if g.DangerouslyAllowPrivateNetwork {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = (&recClient{sock: s.p.recSock()}).call(cctx, recRequest{Op: "guard", Guard: &g}, &v)
		return nil
	}
	rec := s.recorder(ctx)
	if rec == nil {
		return tools.Errorf(tools.CodeFailed, "browser: the request guard (browser.ssrfPolicy on every request) needs the browser recorder, which could not start (see %s)", filepath.Join(s.p.Dir, "recorder.log"))
	}
	if err := rec.call(ctx, recRequest{Op: "guard", Guard: &g}, &v); err != nil {
		return tools.Errorf(tools.CodeFailed, "browser: the request guard could not be set: %v", err)
	}
	return nil
}

// randomToken is 16 random hex digits.
func randomToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
