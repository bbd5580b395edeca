package fs_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Concurrent edits of one file are serialised: every appended line lands.
func TestConcurrentEdits(t *testing.T) {
	env, dir := newEnv(t)
	p := writeFile(t, dir, "log.txt", "BEGIN\nEND\n")
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := call(t, env, "edit", map[string]any{
				"path":    "log.txt",
				"oldText": "END\n",
				"newText": fmt.Sprintf("entry %02d\nEND\n", i),
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, p)
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf("entry %02d\n", i)) {
			t.Fatalf("entry %02d lost:\n%s", i, got)
		}
	}
	if lines := strings.Count(got, "\n"); lines != n+2 {
		t.Fatalf("%d lines:\n%s", lines, got)
	}
}
