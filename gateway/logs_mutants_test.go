package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// These pin methods_logs.go lines that a one-line mutation (`make mutate`)
// could change with the other tests still passing (issue 17, item 20).

// readLogSlice windows: the whole file is not truncated, a smaller window
// is (whole lines only); a cursor past the end resets, truncated only when
// the window is smaller than the file; a cursor with too much after it
// resets to the window; at most limit lines, newest last.
func TestReadLogSliceWindows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.log")
	content := "one\ntwo\nthree\n" // 14 bytes
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	at := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		name             string
		cursor           *int64
		limit            int
		max              int64
		lines            []string
		truncated, reset bool
	}{
		{"whole file", nil, 100, 14, []string{"one", "two", "three"}, false, false},
		{"window cuts a line", nil, 100, 12, []string{"two", "three"}, true, false},
		{"window on a line start", nil, 100, 10, []string{"two", "three"}, true, false},
		{"limit", nil, 1, 100, []string{"three"}, false, false},
		{"cursor past the end, whole file fits", at(99), 100, 14, []string{"one", "two", "three"}, false, true},
		{"cursor past the end, window", at(99), 100, 6, []string{"three"}, true, true},
		{"cursor mid-file", at(4), 100, 100, []string{"two", "three"}, false, false},
		{"cursor with more than the window after it", at(0), 100, 6, []string{"three"}, true, true},
		{"cursor at the end", at(14), 100, 100, []string{}, false, false},
		{"cursor with exactly the window after it", at(8), 100, 6, []string{"three"}, false, false},
	} {
		res, err := readLogSlice(path, c.cursor, c.limit, c.max)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(res.Lines, c.lines) || res.Truncated != c.truncated || res.Reset != c.reset || res.Cursor != 14 {
			t.Errorf("%s: lines %q truncated %v reset %v cursor %d; want %q %v %v 14",
				c.name, res.Lines, res.Truncated, res.Reset, res.Cursor, c.lines, c.truncated, c.reset)
		}
	}
}
