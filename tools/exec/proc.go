package exectool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// killGrace is how long a process group has between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// readerGrace bounds the wait for output after the group is gone: a
// process that left the group (setsid) may still hold the pipe.
const readerGrace = 2 * time.Second

// spec is what to run.
type spec struct {
	command string
	dir     string
	env     []string
	pty     bool
	stdin   bool // keep a writable stdin (gateway sessions); else /dev/null

	argv  []string            // run this instead of the shell (the sandbox's bwrap command line)
	cred  *syscall.Credential // the user to run as (nil: ours)
	files []*os.File          // passed as fds 3, 4, …
}

// proc is one running command in its own process group. Every exit path
// ends the whole group: leftover children of a finished command are
// killed, as in the original.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	token   string // OPENCLAW_EXEC_TOKEN of its descendants (descendants.go)
	out     *output
	started time.Time

	// stdinMu guards the stdin field only (never held while writing, so
	// poll's writable() and closeStdin never wait for a write); stdinTurn
	// serialises writes, and a writer waits for its turn only until its
	// deadline.
	stdinMu   sync.Mutex
	stdin     *os.File // pipe or PTY master; nil when closed
	isPTY     bool
	stdinTurn chan struct{}

	done     chan struct{} // closed when the process has exited and output is read
	mu       sync.Mutex
	exited   bool
	exitCode *int
	signal   string
	killedBy string // "timeout", "deadline", "kill", "abort", "shutdown" when we ended it
	ended    time.Time
}

// shell picks $SHELL (fish is not POSIX: bash or sh instead), else /bin/sh.
func shell() string {
	sh := os.Getenv("SHELL")
	if sh == "" || filepath.Base(sh) == "fish" {
		if p, err := exec.LookPath("bash"); err == nil {
			return p
		}
		return "/bin/sh"
	}
	return sh
}

// start launches s. The returned proc is running; done closes when it ends.
func start(s spec, aggCap, pendCap int) (*proc, error) {
	cmd := exec.Command(shell(), "-c", s.command)
	if len(s.argv) > 0 {
		cmd = exec.Command(s.argv[0], s.argv[1:]...)
	}
	cmd.Dir = s.dir
	cmd.ExtraFiles = s.files
	token := newToken()
	for _, kv := range s.env {
		if !strings.HasPrefix(kv, tokenEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, tokenEnv+"="+token)
	p := &proc{cmd: cmd, token: token, out: newOutput(aggCap, pendCap), done: make(chan struct{}), isPTY: s.pty, stdinTurn: make(chan struct{}, 1)}
	var readers []*os.File
	if s.pty {
		// pty.Start makes the child a session leader (Setsid), so its pid is
		// also its process group id.
		var raw *os.File
		err := spawn(cmd, func() (err error) {
			raw, err = pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("pty: %w", err)
		}
		f, err := pollable(raw)
		if err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			return nil, fmt.Errorf("pty: %w", err)
		}
		p.stdin = f
		readers = []*os.File{f}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		or, ow, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		er, ew, err := os.Pipe()
		if err != nil {
			or.Close()
			ow.Close()
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = ow, ew
		var inW *os.File
		if s.stdin {
			inR, w, err := os.Pipe()
			if err != nil {
				closeAll(or, ow, er, ew)
				return nil, err
			}
			cmd.Stdin, inW = inR, w
			defer inR.Close()
		}
		err = spawn(cmd, cmd.Start)
		ow.Close()
		ew.Close()
		if err != nil {
			or.Close()
			er.Close()
			if inW != nil {
				inW.Close()
			}
			return nil, err
		}
		if inW != nil {
			p.stdin = inW
		}
		readers = []*os.File{or, er}
	}
	p.pid = cmd.Process.Pid
	p.started = time.Now()
	var rw sync.WaitGroup
	for i, f := range readers {
		rw.Add(1)
		go func() {
			defer rw.Done()
			p.read(i, f)
		}()
	}
	go p.wait(readers, &rw)
	return p, nil
}

// pollable replaces the PTY master creack/pty returns (a blocking file:
// deadlines do not apply to it) with a non-blocking duplicate in Go's
// poller, so a write to a terminal nobody reads can time out.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var derr error
	if err := sc.Control(func(fd uintptr) { nfd, derr = unix.Dup(int(fd)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, err
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

// read copies one stream into the output in chunks.
func (p *proc) read(stream int, f *os.File) {
	buf := make([]byte, chunkSize)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.out.write(stream, buf[:n], time.Now().UnixMilli())
		}
		if err != nil {
			return
		}
	}
}

// wait reaps the process, ends what is left of its group, collects the
// remaining output and records how it ended.
func (p *proc) wait(readers []*os.File, rw *sync.WaitGroup) {
	err := p.cmd.Wait()
	_ = syscall.Kill(-p.pid, syscall.SIGKILL) // leftover children of the group
	killTagged(p.token)                       // and those that left it (setsid)
	drained := make(chan struct{})
	go func() { rw.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(readerGrace):
	}
	for _, f := range readers {
		f.Close()
	}
	p.closeStdin()
	p.mu.Lock()
	p.exited = true
	p.ended = time.Now()
	var ee *exec.ExitError
	if errors.As(err, &ee) || err == nil {
		ps := p.cmd.ProcessState
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.signal = unix.SignalName(ws.Signal())
		} else {
			c := ps.ExitCode()
			p.exitCode = &c
		}
	}
	p.mu.Unlock()
	close(p.done)
}

// kill ends the process group: SIGTERM, then SIGKILL after killGrace (or
// at once when ctx ends). why is recorded for the result.
func (p *proc) kill(ctx context.Context, why string) {
	p.mu.Lock()
	if p.exited {
		p.mu.Unlock()
		return
	}
	if p.killedBy == "" {
		p.killedBy = why
	}
	p.mu.Unlock()
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	for _, pid := range tagged(p.token) { // descendants outside the group
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	killTagged(p.token)
	<-p.done
}

// markKilled records why the group is about to be ended (the first
// reason wins), for a kill that another goroutine carries out.
func (p *proc) markKilled(why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.exited && p.killedBy == "" {
		p.killedBy = why
	}
}

// stdinWriteTimeout bounds one write to a session's stdin (including the
// wait for an earlier write): a process that stopped reading makes the
// write fail, never hang the session.
var stdinWriteTimeout = 10 * time.Second

// errStdinTimeout is a write that did not complete in time.
var errStdinTimeout = errors.New("stdin write timed out: the process is not reading its input")

// write sends data to stdin (or the PTY); eof closes it afterwards. It
// gives up at stdinWriteTimeout or when ctx ends, reporting how many bytes
// went in.
func (p *proc) write(ctx context.Context, data []byte, eof bool) (int, error) {
	deadline := time.Now().Add(stdinWriteTimeout)
	t := time.NewTimer(stdinWriteTimeout)
	defer t.Stop()
	select {
	case p.stdinTurn <- struct{}{}:
	case <-t.C:
		return 0, errStdinTimeout
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-p.stdinTurn }()
	p.stdinMu.Lock()
	f := p.stdin
	p.stdinMu.Unlock()
	if f == nil {
		return 0, errStdinClosed
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	// Pipes and the PTY master are in Go's poller: the deadline interrupts
	// a blocked write.
	if err := f.SetWriteDeadline(deadline); err != nil {
		return 0, fmt.Errorf("stdin: %w", err)
	}
	defer f.SetWriteDeadline(time.Time{})
	n := 0
	if len(data) > 0 {
		var err error
		n, err = f.Write(data)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return n, errStdinTimeout
		}
		if err != nil {
			return n, err
		}
	}
	if eof {
		if p.isPTY {
			_, err := f.Write([]byte{4}) // ^D: a PTY has no half-close
			return n, err
		}
		p.stdinMu.Lock()
		defer p.stdinMu.Unlock()
		if p.stdin == f {
			p.stdin = nil
			return n, f.Close()
		}
	}
	return n, nil
}

var errStdinClosed = errors.New("stdin is closed")

func (p *proc) closeStdin() {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin != nil && !p.isPTY {
		p.stdin.Close()
		p.stdin = nil
	}
	if p.isPTY {
		p.stdin = nil
	}
}

func (p *proc) writable() bool {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	return p.stdin != nil
}

// state is a snapshot of how the process ended (exited false while running).
type state struct {
	exited   bool
	exitCode *int
	signal   string
	killedBy string
	duration time.Duration
	ended    time.Time
}

func (p *proc) state() state {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := state{exited: p.exited, exitCode: p.exitCode, signal: p.signal, killedBy: p.killedBy, ended: p.ended}
	if p.exited {
		st.duration = p.ended.Sub(p.started)
	} else {
		st.duration = time.Since(p.started)
	}
	return st
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// peek reports whether unread output is waiting.
func (p *proc) peek() (bool, int) {
	p.out.mu.Lock()
	defer p.out.mu.Unlock()
	n := len(p.out.pending[0].b) + len(p.out.pending[1].b)
	return n > 0, n
}

// lastOutput is when output last arrived (the start when none yet).
func (p *proc) lastOutput() time.Time {
	p.out.mu.Lock()
	defer p.out.mu.Unlock()
	if p.out.lastWrite == 0 {
		return p.started
	}
	return time.UnixMilli(p.out.lastWrite)
}
