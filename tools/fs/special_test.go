package fs_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// callWithin runs one tool call with a context deadline and fails the test
// if the call is still blocked well after it: a hang, not a slow call.
func callWithin(t *testing.T, env *tools.Env, id string, params any) error {
	t.Helper()
	b, _ := json.Marshal(params)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := tools.Invoke(ctx, env, tools.Call{ID: id, Args: b})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Errorf("%s %v: still blocked 25 s past its context deadline", id, params)
		return context.DeadlineExceeded
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

// read, write and edit refuse FIFOs, sockets and devices at once with a
// clear error; a FIFO never blocks them, and never blocks a later call
// through the per-file lock.
func TestSpecialFilesRefused(t *testing.T) {
	env, dir := newEnv(t)
	fifo := filepath.Join(dir, "pipe")
	mkfifo(t, fifo)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"pipe", "sock", "/dev/null", "sub"} {
		shown := p
		for _, c := range []struct{ id, special, dir string }{
			{"write", "Write only supports regular files; nothing was written: ",
				"Write requires a file path, but " + shown + " is a directory."},
			{"edit", "Edit only supports regular files; nothing was changed: ",
				"Edit requires a file path, but " + shown + " is a directory."},
			{"read", "Read only supports regular files; no read was attempted: ",
				"Read requires a file path, but " + shown + " is a directory. List the directory, then read a specific file."},
		} {
			err := callWithin(t, env, c.id, map[string]any{"path": p, "content": "x", "oldText": "a", "newText": "b"})
			want := c.special + shown
			if p == "sub" {
				want = c.dir
			}
			wantErr(t, err, tools.CodeFailed, want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// A path swapped between a file and a FIFO while calls run: every call
// ends (content, a refusal or "not found"), none hangs.
func TestFIFOSwapNeverHangs(t *testing.T) {
	env, dir := newEnv(t)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, dir, "f.txt", "a\n")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(dir, "swap.tmp")
		for i := 0; !stop.Load(); i++ {
			os.Remove(tmp)
			if i%2 == 0 {
				_ = syscall.Mkfifo(tmp, 0o644)
			} else {
				_ = os.WriteFile(tmp, []byte("a\n"), 0o644)
			}
			_ = os.Rename(tmp, p)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	var calls sync.WaitGroup
	for w := range 4 {
		calls.Add(1)
		go func() {
			defer calls.Done()
			for i := range 4000 {
				id := []string{"read", "read", "edit"}[(i+w)%3]
				err := callWithin(t, env, id, map[string]any{"path": "f.txt", "oldText": "a", "newText": "a"})
				if te := tools.AsError(err); te != nil && te.Code == tools.CodeTimeout {
					t.Errorf("%s %d: timed out: a FIFO blocked the call", id, i)
					return
				}
			}
		}()
	}
	calls.Wait()
}

// Waiting for the per-file lock honours the context: a read queued behind a
// stuck edit times out (exit 124) instead of waiting forever.
func TestLockWaitHonoursContext(t *testing.T) {
	env, dir := newEnv(t)
	writeFile(t, dir, "f.txt", "one\n")
	inside, release := make(chan struct{}), make(chan struct{})
	ctx := fs.WithBeforeCommit(context.Background(), func(string) { close(inside); <-release })
	editDone := make(chan error, 1)
	go func() {
		_, err := tools.Invoke(ctx, env, tools.Call{ID: "edit", Args: []byte(`{"path":"f.txt","oldText":"one","newText":"two"}`)})
		editDone <- err
	}()
	<-inside
	rctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := tools.Invoke(rctx, env, tools.Call{ID: "read", Args: []byte(`{"path":"f.txt"}`)})
	if te := tools.AsError(err); te == nil || te.Code != tools.CodeTimeout || te.ExitCode() != 124 {
		t.Fatalf("read behind a held lock: %v, want a timeout", err)
	}
	close(release)
	if err := <-editDone; err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "two\n" {
		t.Fatalf("file = %q", got)
	}
}
