package fs_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// lines45k is a 45,000-line file of 450,000 bytes.
func lines45k() string {
	var b strings.Builder
	for i := 1; i <= 45000; i++ {
		fmt.Fprintf(&b, "line%05d\n", i)
	}
	return b.String()
}

// dirNames lists a directory (temp files left behind show up here).
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func wantOnly(t testing.TB, dir string, names ...string) {
	t.Helper()
	if got := dirNames(t, dir); strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}

// An edit that fails half-way (here: the file size limit, in a separate
// process run as `sh -c 'ulimit -f 1000; exec ...'`) leaves the file
// byte-identical and no temp file behind.
func TestEditUnderFileSizeLimitLeavesFileIntact(t *testing.T) {
	ws := t.TempDir()
	orig := lines45k()
	p := writeFile(t, ws, "big.txt", orig)
	insert := strings.Repeat("inserted text that makes the file grow past the limit\n", 300*1024/54)
	params, _ := json.Marshal(map[string]any{"path": "big.txt", "oldText": "line22500\n", "newText": "line22500\n" + insert})
	pf := filepath.Join(t.TempDir(), "params.json")
	if err := os.WriteFile(pf, params, 0o644); err != nil {
		t.Fatal(err)
	}
	h := helper(t, "invoke", ws, "FS_HELPER_TOOL=edit", "FS_HELPER_PARAMS="+pf)
	cmd := exec.Command("sh", "-c", `ulimit -f 1000; exec "$0"`, h.Path)
	cmd.Env = h.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()

	// The limit must sit between the old and the new size, or the test
	// proves nothing.
	fsize, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(stdout.String(), "\n", 2)[0], "fsize="))
	if newSize := len(orig) + len(insert); fsize <= len(orig) || fsize >= newSize {
		t.Fatalf("RLIMIT_FSIZE %d is not between %d and %d (stdout %q)", fsize, len(orig), newSize, stdout.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("edit under ulimit: err %v, stderr %q; want exit 1", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "file too large") {
		t.Fatalf("stderr = %q, want the file-size error", stderr.String())
	}
	if got := readFile(t, p); got != orig {
		t.Fatalf("the failed edit changed the file: %d bytes, want %d", len(got), len(orig))
	}
	wantOnly(t, ws, "big.txt")
}

// kill -9 during writes never leaves a half-written file: after every kill
// the file is one complete version or the other.
func TestWriteSurvivesKill9(t *testing.T) {
	ws := t.TempDir()
	a, b := loopContent(0), loopContent(1)
	p := writeFile(t, ws, "big.txt", a)
	for round := range 30 {
		cmd := helper(t, "writeloop", ws)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill while write number k is under way: once its "round k" line
		// is out, wait until the write shows on disk (the file shrinks, or
		// a second entry appears next to it).
		sc := bufio.NewScanner(out)
		want := fmt.Sprintf("round %d", round%3+1)
		for sc.Scan() && sc.Text() != want {
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			fi, err := os.Stat(p)
			if err != nil || fi.Size() != int64(len(a)) || len(dirNames(t, ws)) > 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no write seen", round)
			}
			runtime.Gosched()
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		got := readFile(t, p)
		if got != a && got != b {
			t.Fatalf("round %d: kill -9 left a %d-byte file (complete versions have %d)", round, len(got), len(a))
		}
	}
}

// Readers (plain reads, not through the tool's lock) never see a
// half-written file while edits run.
func TestReadersNeverSeeHalfFile(t *testing.T) {
	env, dir := newEnv(t)
	filler := strings.Repeat("filler line filler line filler line filler line\n", 40000) // ~2 MB
	p := writeFile(t, dir, "f.txt", "BEGIN\n"+filler+"END\n")
	var stop atomic.Bool
	var reads, bad atomic.Int64
	var firstBad atomic.Value
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				b, err := os.ReadFile(p)
				reads.Add(1)
				if err != nil || !bytes.HasPrefix(b, []byte("BEGIN\n")) || !bytes.HasSuffix(b, []byte("END\n")) || len(b) < len(filler) {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, fmt.Sprintf("%d bytes, err %v", len(b), err))
				}
			}
		}()
	}
	for i := range 40 {
		mustCall(t, env, "edit", map[string]any{"path": "f.txt", "oldText": "END\n", "newText": fmt.Sprintf("entry %d\nEND\n", i)})
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d of %d reads saw a half-written file (first: %v)", bad.Load(), reads.Load(), firstBad.Load())
	}
	if got := readFile(t, p); !strings.HasSuffix(got, "entry 39\nEND\n") {
		t.Fatalf("tail = %q", got[len(got)-40:])
	}
}

// Another process changing the file between edit's read and its commit
// makes the edit fail and write nothing: the other change is kept.
func TestEditRefusesConcurrentChange(t *testing.T) {
	const changed = "File changed while editing, nothing written: f.txt. Read it again, then retry the edit."
	for _, c := range []struct {
		name   string
		change func(t *testing.T, p string)
		want   string
	}{
		{"append", func(t *testing.T, p string) {
			run(t, "sh", "-c", `printf 'intruder\n' >> "$1"`, "sh", p)
		}, "one\ntwo\nthree\nintruder\n"},
		{"same size and mtime", func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			run(t, "sh", "-c", `printf 'ONE' | dd of="$1" conv=notrunc status=none`, "sh", p)
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, "ONE\ntwo\nthree\n"},
		{"removed", func(t *testing.T, p string) { run(t, "rm", p) }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, dir := newEnv(t)
			p := writeFile(t, dir, "f.txt", "one\ntwo\nthree\n")
			ctx := fs.WithBeforeCommit(context.Background(), func(string) { c.change(t, p) })
			_, err := tools.Invoke(ctx, env, tools.Call{ID: "edit", Args: []byte(`{"path":"f.txt","oldText":"two","newText":"TWO"}`)})
			wantErr(t, err, tools.CodeFailed, changed)
			if c.want == "" {
				wantOnly(t, dir)
				return
			}
			if got := readFile(t, p); got != c.want {
				t.Fatalf("file = %q, want %q", got, c.want)
			}
			wantOnly(t, dir, "f.txt")
		})
	}
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
}

// write and edit keep the mode of the file they replace and write through
// a symlink to its target (the link stays a link).
func TestWriteEditKeepModeAndLinks(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "secret.txt", "token=1\n")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, "secret.txt", filepath.Join(dir, "link.txt"))
	mustCall(t, env, "edit", map[string]any{"path": "link.txt", "oldText": "1", "newText": "2"})
	mustCall(t, env, "write", map[string]any{"path": "link.txt", "content": "token=3\n"})
	mustCall(t, env, "edit", map[string]any{"path": "secret.txt", "oldText": "3", "newText": "4"})
	if got := readFile(t, p); got != "token=4\n" {
		t.Fatalf("target = %q", got)
	}
	fi, err := os.Lstat(filepath.Join(dir, "link.txt"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a symlink: %v %v", fi.Mode(), err)
	}
	fi, err = os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600 (%v)", fi.Mode(), err)
	}
	mustCall(t, env, "write", map[string]any{"path": "new.txt", "content": "x"})
	old := syscall.Umask(0)
	syscall.Umask(old)
	if fi, err := os.Stat(filepath.Join(dir, "new.txt")); err != nil || fi.Mode().Perm() != 0o644&^os.FileMode(old) {
		t.Fatalf("new file mode = %v (%v)", fi.Mode(), err)
	}
	wantOnly(t, dir, "link.txt", "new.txt", "secret.txt")
}

// BenchmarkEdit45kLines edits one line in the middle of a 45,000-line
// file: read, match, commit through a fsynced temp file, diff.
func BenchmarkEdit45kLines(b *testing.B) {
	env, dir := newEnv(b)
	writeFile(b, dir, "big.txt", lines45k())
	params := [2][]byte{
		[]byte(`{"path":"big.txt","oldText":"line22500\n","newText":"LINE22500\n"}`),
		[]byte(`{"path":"big.txt","oldText":"LINE22500\n","newText":"line22500\n"}`),
	}
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := tools.Invoke(ctx, env, tools.Call{ID: "edit", Args: params[i%2]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// The replaced file's owner and group are kept where the process may set
// them (as root: any; otherwise the new file is the caller's).
func TestEditKeepsOwner(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "owned.txt", "a\n")
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 4242, 4343
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	mustCall(t, env, "edit", map[string]any{"path": "owned.txt", "oldText": "a", "newText": "b"})
	mustCall(t, env, "write", map[string]any{"path": "owned.txt", "content": "c\n"})
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != uid || int(st.Gid) != gid {
		t.Fatalf("owner %d:%d, want %d:%d", st.Uid, st.Gid, uid, gid)
	}
}

// A file that is a mount point (a single file bind-mounted into a
// container, say) cannot be renamed over: edit and write then write it in
// place rather than fail. Run in a private mount namespace (unshare -m).
func TestEditBindMountedFile(t *testing.T) {
	ws := t.TempDir()
	src := writeFile(t, t.TempDir(), "real.json", `{"a":1}`+"\n")
	writeFile(t, ws, "mounted.json", "placeholder\n")
	pf := filepath.Join(t.TempDir(), "params.json")
	if err := os.WriteFile(pf, []byte(`{"path":"mounted.json","oldText":"1","newText":"2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := helper(t, "invoke", ws, "FS_HELPER_TOOL=edit", "FS_HELPER_PARAMS="+pf)
	cmd := exec.Command("unshare", "-rm", "sh", "-c", `mount --bind "$1" "$2" && exec "$0"`,
		h.Path, src, filepath.Join(ws, "mounted.json"))
	cmd.Env = h.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("edit of a bind-mounted file: %v\n%s", err, out)
	}
	if got := readFile(t, src); got != `{"a":2}`+"\n" {
		t.Fatalf("mounted file = %q", got)
	}
	wantOnly(t, ws, "mounted.json")
}
