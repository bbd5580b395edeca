package exectool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
}

// proc is one running command in its own process group. Every exit path
// ends the whole group: leftover children of a finished command are
// killed, as in the original.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	out     *output
	started time.Time

	stdinMu sync.Mutex
	stdin   io.WriteCloser // pipe or PTY master; nil when closed
	isPTY   bool

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
	cmd.Dir = s.dir
	cmd.Env = s.env
	p := &proc{cmd: cmd, out: newOutput(aggCap, pendCap), done: make(chan struct{}), isPTY: s.pty}
	var readers []*os.File
	if s.pty {
		// pty.Start makes the child a session leader (Setsid), so its pid is
		// also its process group id.
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
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
		err = cmd.Start()
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
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
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

// write sends data to stdin (or the PTY); eof closes it afterwards.
func (p *proc) write(data []byte, eof bool) error {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin == nil {
		return errStdinClosed
	}
	if len(data) > 0 {
		if _, err := p.stdin.Write(data); err != nil {
			return err
		}
	}
	if eof {
		if p.isPTY {
			_, err := p.stdin.Write([]byte{4}) // ^D: a PTY has no half-close
			return err
		}
		err := p.stdin.Close()
		p.stdin = nil
		return err
	}
	return nil
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
