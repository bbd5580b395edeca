package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// hugeSize is the sparse file the memory tests read: far more than the
// page a read returns, so a whole-file read shows as gigabytes allocated.
const hugeSize = 3 << 30

// sparse writes head and then extends the file to size with a hole (NUL
// bytes that take no disk space).
func sparse(t testing.TB, dir, name, head string, size int64) string {
	t.Helper()
	p := writeFile(t, dir, name, head)
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	return p
}

// allocated returns the bytes the Go heap allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A read of a 3 GB file allocates about one page, not the file: memory is
// bounded by the caps. Totals past the counting budget are not counted:
// the notice says more lines follow.
func TestReadHugeFileBoundedMemory(t *testing.T) {
	env, dir := newEnv(t)
	sparse(t, dir, "huge.log", numbered(1, 2500), hugeSize)
	const bound = 4 << 20

	var got string
	n := allocated(func() { got = text(mustCall(t, env, "read", map[string]any{"path": "huge.log"})) })
	want := strings.TrimSuffix(numbered(1, 2000), "\n") +
		"\n\n[Showing lines 1-2000; more lines follow. Use offset=2001 to continue.]"
	if n > bound {
		t.Fatalf("read of a %d-byte file allocated %d bytes (bound %d)", hugeSize, n, bound)
	}
	if got != want {
		t.Fatalf("first page ends %q", got[max(0, len(got)-120):])
	}

	// The page before the hole, stopped by the byte cap at the huge line.
	n = allocated(func() { got = text(mustCall(t, env, "read", map[string]any{"path": "huge.log", "offset": 2001})) })
	want = strings.TrimSuffix(numbered(2001, 2500), "\n") +
		"\n\n[Showing lines 2001-2500; more lines follow (50.0KB limit). Use offset=2501 to continue.]"
	if got != want {
		t.Fatalf("second page ends %q", got[max(0, len(got)-120):])
	}
	if n > bound {
		t.Fatalf("second page allocated %d bytes", n)
	}

	// The huge line itself: its size is not measured past the budget.
	n = allocated(func() {
		got = text(mustCall(t, env, "read", map[string]any{"path": "huge.log", "offset": 2501}))
	})
	if want := "[Line 2501 is more than 32.0MB, exceeds 50.0KB limit. Use bash: sed -n '2501p' huge.log | head -c 51200]"; got != want {
		t.Fatalf("huge line: %q", got)
	}
	if n > bound {
		t.Fatalf("huge line allocated %d bytes", n)
	}

	// With a limit, the lines after it are not counted either.
	got = text(mustCall(t, env, "read", map[string]any{"path": "huge.log", "offset": 3, "limit": 2}))
	if want := "line 3\nline 4\n\n[More lines follow. Use offset=5 to continue.]"; got != want {
		t.Fatalf("limited page: %q", got)
	}
}

// Below the counting budget totals stay exact, CRLF and BOM included, as
// a whole-file read reported them.
func TestReadCountsWhenCheap(t *testing.T) {
	env, dir := newEnv(t)
	var b strings.Builder
	b.WriteString("\uFEFF")
	for i := 1; i <= 3000; i++ {
		b.WriteString(strings.Repeat("x", 40) + "\r\n")
	}
	writeFile(t, dir, "crlf.txt", b.String())
	r := mustCall(t, env, "read", map[string]any{"path": "crlf.txt", "offset": 2})
	tr := r.Get("details.truncation")
	// 50 KiB holds 1248 lines of 41 bytes (40 + "\n"), less the last newline.
	if got := text(r); !strings.HasSuffix(got, "\n\n[Showing lines 2-1249 of 3000 (50.0KB limit). Use offset=1250 to continue.]") {
		t.Fatalf("notice: %q", got[len(got)-100:])
	}
	if tr.Get("totalLines").Int() != 2999 || tr.Get("totalBytes").Int() != 2999*41-1 || tr.Get("outputLines").Int() != 1248 ||
		tr.Get("outputBytes").Int() != 1248*41-1 {
		t.Fatalf("truncation = %s", tr.Raw)
	}
	r = mustCall(t, env, "read", map[string]any{"path": "crlf.txt", "offset": 2990, "limit": 5})
	if got := text(r); got != strings.Repeat(strings.Repeat("x", 40)+"\n", 5)+"\n[6 more lines in file. Use offset=2995 to continue.]" {
		t.Fatalf("limited: %q", got)
	}
	if _, err := call(t, env, "read", map[string]any{"path": "crlf.txt", "offset": 3001}); err == nil ||
		err.Error() != "Offset 3001 is beyond end of file (3000 lines total). Retry with offset <= 3000." {
		t.Fatalf("offset past the end: %v", err)
	}
	// A file ending in a lone CR keeps it; a CR before LF goes.
	writeFile(t, dir, "cr.txt", "a\r\r\nb\r")
	if got := text(mustCall(t, env, "read", map[string]any{"path": filepath.Join(dir, "cr.txt")})); got != "a\r\nb\r" {
		t.Fatalf("cr: %q", got)
	}
}

// BenchmarkReadHugeFile reads the first page of a 3 GB sparse file.
func BenchmarkReadHugeFile(b *testing.B) {
	env, dir := newEnv(b)
	sparse(b, dir, "huge.log", numbered(1, 2500), hugeSize)
	b.ReportAllocs()
	for b.Loop() {
		mustCall(b, env, "read", map[string]any{"path": "huge.log"})
	}
}

// Scanning to a far offset honours the call's deadline: the read ends with
// a timeout (exit 124) instead of scanning gigabytes past it.
func TestReadScanHonoursContext(t *testing.T) {
	env, dir := newEnv(t)
	sparse(t, dir, "huge.log", "first\n", hugeSize)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := tools.Invoke(ctx, env, tools.Call{ID: "read", Args: []byte(`{"path":"huge.log","offset":3}`)})
	if te := tools.AsError(err); te == nil || te.Code != tools.CodeTimeout {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
}
