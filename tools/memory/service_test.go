package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayEnv is an env as the gateway builds one: the memory service
// started, the notes in <state>/workspace.
func gatewayEnv(t *testing.T) (*tools.Env, *service, string) {
	t.Helper()
	state := t.TempDir()
	ws := filepath.Join(state, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	svc, err := newService(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	env := &tools.Env{Config: config.Empty(), StateDir: state, Workspace: t.TempDir(),
		Services: map[string]tools.Service{serviceKey.Name(): svc}}
	return env, svc, ws
}

func put(t *testing.T, ws, rel, body string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func found(t *testing.T, env *tools.Env, q string) []string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": q})
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "memory_search", Args: b})
	if err != nil {
		t.Fatalf("memory_search %q: %v", q, err)
	}
	var paths []string
	for _, h := range gjson.GetBytes(out, "details.results").Array() {
		paths = append(paths, h.Get("path").String())
	}
	slices.Sort(paths)
	return paths
}

// live is the service's one open index.
func live(t *testing.T, svc *service) *liveIndex {
	t.Helper()
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if len(svc.open) != 1 {
		t.Fatalf("%d open indexes", len(svc.open))
	}
	for _, o := range svc.open {
		return o
	}
	return nil
}

// In the gateway a warm search scans no note while nothing changed, and
// every kind of change is found by the next search: an in-place edit that
// keeps the size and puts the mtime back, a new note in a new directory,
// a deletion, a renamed directory, a replaced MEMORY.md.
func TestServiceWatchesNotes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatal("the watcher is inotify's: this test runs on Linux")
	}
	env, svc, ws := gatewayEnv(t)
	put(t, ws, "MEMORY.md", "The user likes green tea.\n")
	put(t, ws, "memory/2026-03-01.md", "Standup: the kiosk budget was approved.\n")
	if got := found(t, env, "kiosk"); !slices.Equal(got, []string{"memory/2026-03-01.md"}) {
		t.Fatalf("first search: %v", got)
	}
	o := live(t, svc)
	base := o.scans.Load()
	for range 3 {
		if got := found(t, env, "tea"); !slices.Equal(got, []string{"MEMORY.md"}) {
			t.Fatalf("warm search: %v", got)
		}
	}
	if n := o.scans.Load() - base; n != 0 {
		t.Fatalf("warm searches scanned the notes %d times", n)
	}
	step := func(what string, change func(), q string, want ...string) {
		t.Helper()
		before := o.scans.Load()
		change()
		if got := found(t, env, q); !slices.Equal(got, want) {
			t.Fatalf("%s: search %q found %v, want %v", what, q, got, want)
		}
		if o.scans.Load() == before {
			t.Fatalf("%s: no scan after the change", what)
		}
		before = o.scans.Load()
		found(t, env, q)
		if o.scans.Load() != before {
			t.Fatalf("%s: the search after scanned again", what)
		}
	}
	p := filepath.Join(ws, "memory", "2026-03-01.md")
	fi, _ := os.Stat(p)
	step("same-size edit, mtime restored", func() {
		if err := os.WriteFile(p, []byte("Standup: the metro budget was approved.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}, "metro", "memory/2026-03-01.md")
	step("new note in a new directory", func() { put(t, ws, "memory/projects/alpha/plan.md", "Alpha ships the metro map.\n") },
		"metro", "memory/2026-03-01.md", "memory/projects/alpha/plan.md")
	step("note in the directory created since", func() { put(t, ws, "memory/projects/alpha/beta.md", "Beta metro.\n") },
		"metro", "memory/2026-03-01.md", "memory/projects/alpha/beta.md", "memory/projects/alpha/plan.md")
	step("deletion", func() { os.Remove(filepath.Join(ws, "memory", "projects", "alpha", "beta.md")) },
		"metro", "memory/2026-03-01.md", "memory/projects/alpha/plan.md")
	step("directory renamed", func() {
		if err := os.Rename(filepath.Join(ws, "memory", "projects"), filepath.Join(ws, "memory", "work")); err != nil {
			t.Fatal(err)
		}
	}, "metro", "memory/2026-03-01.md", "memory/work/alpha/plan.md")
	step("MEMORY.md replaced by a rename", func() {
		put(t, ws, "MEMORY.tmp", "The user likes coffee now.\n")
		if err := os.Rename(filepath.Join(ws, "MEMORY.tmp"), filepath.Join(ws, "MEMORY.md")); err != nil {
			t.Fatal(err)
		}
	}, "coffee", "MEMORY.md")
	step("a second hard link planted in memory/", func() {
		if err := os.Link(filepath.Join(ws, "MEMORY.md"), filepath.Join(ws, "memory", "linked.md")); err != nil {
			t.Fatal(err)
		}
	}, "coffee") // both names now have two links: neither is indexed
	// A file that is not a note changes nothing (agents write elsewhere in
	// the workspace all the time).
	before := o.scans.Load()
	put(t, ws, "scratch.txt", "x")
	put(t, ws, "memory/.swap.tmp", "x")
	found(t, env, "coffee")
	if o.scans.Load() != before {
		t.Fatal("a change to files that are not notes made the search scan")
	}
}

// The workspace directory replaced as a whole (renamed away, a new one in
// its place) is noticed although no watched directory reports it.
func TestServiceWorkspaceReplaced(t *testing.T) {
	env, _, ws := gatewayEnv(t)
	put(t, ws, "memory/a.md", "alpha note\n")
	if got := found(t, env, "alpha"); len(got) != 1 {
		t.Fatalf("first search: %v", got)
	}
	if err := os.Rename(ws, ws+".old"); err != nil {
		t.Fatal(err)
	}
	put(t, ws, "memory/b.md", "bravo note\n")
	if got := found(t, env, "bravo"); !slices.Equal(got, []string{"memory/b.md"}) {
		t.Fatalf("after the workspace was replaced: %v", got)
	}
	if got := found(t, env, "alpha"); len(got) != 0 {
		t.Fatalf("the old workspace's note is still found: %v", got)
	}
}

// Another process rebuilding the index (a local `memory index --force`)
// or syncing it is seen: the gateway's next search does not trust a
// signature the index no longer holds, and its ranking cache follows the
// database's data_version.
func TestServiceIndexChangedByAnotherProcess(t *testing.T) {
	env, svc, ws := gatewayEnv(t)
	put(t, ws, "memory/a.md", "alpha kiosk\n")
	put(t, ws, "memory/b.md", "bravo kiosk kiosk\n")
	if got := found(t, env, "kiosk"); len(got) != 2 {
		t.Fatalf("first search: %v", got)
	}
	o := live(t, svc)
	other, err := Open(context.Background(), o.ix.path, o.ix.root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := found(t, env, "kiosk"); len(got) != 2 {
		t.Fatalf("after another process emptied the index: %v", got)
	}
	// Rebuilt by the other process: new rowids, maybe reusing old ones
	// for other chunks; the cached lengths must not be used for them.
	if err := other.reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	put(t, ws, "memory/c.md", "charlie kiosk kiosk kiosk kiosk\n")
	if _, err := other.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	other.sqlRank = true
	want, err := other.Search(context.Background(), "kiosk", 6, 0, rerank{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"query": "kiosk"})
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "memory_search", Args: b})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(want)
	if got := gjson.GetBytes(out, "details.results").Raw; got != string(w) {
		t.Fatalf("gateway search after another process rebuilt the index:\n got %s\nwant %s", got, w)
	}
}

// What no event reports (here a link count changed by a hard link made
// outside memory/: the kernel tells watchers of the file, not of its
// directory) is caught by the periodic re-scan.
func TestServiceRecheckCatchesUnreportedChange(t *testing.T) {
	env, svc, ws := gatewayEnv(t)
	put(t, ws, "memory/a.md", "alpha secret\n")
	if got := found(t, env, "secret"); len(got) != 1 {
		t.Fatalf("first search: %v", got)
	}
	if err := os.Link(filepath.Join(ws, "memory", "a.md"), filepath.Join(ws, "outside.txt")); err != nil {
		t.Fatal(err)
	}
	live(t, svc).recheck()
	if got := found(t, env, "secret"); len(got) != 0 {
		t.Fatalf("a note with a second link outside memory/ is still indexed: %v", got)
	}
}

// Idle indexes beyond the bound are closed, least recently used first.
func TestServiceBoundsOpenIndexes(t *testing.T) {
	env, svc, _ := gatewayEnv(t)
	defer func(n int) { maxOpenIndexes = n }(maxOpenIndexes)
	maxOpenIndexes = 2
	for _, agent := range []string{"a1", "a2", "a3"} {
		e := *env
		e.Subject.AgentID = agent
		found(t, &e, "anything")
		time.Sleep(time.Millisecond)
	}
	svc.mu.Lock()
	n := len(svc.open)
	var paths []string
	for _, o := range svc.open {
		paths = append(paths, filepath.Base(o.ix.path))
	}
	svc.mu.Unlock()
	slices.Sort(paths)
	if n != 2 || !slices.Equal(paths, []string{"a2.sqlite", "a3.sqlite"}) {
		t.Fatalf("open indexes: %v", paths)
	}
}

// Searches running at once in the gateway while notes are written all
// succeed, and once the writing stops the next search finds every note.
func TestServiceConcurrentSearchesWhileWriting(t *testing.T) {
	env, _, ws := gatewayEnv(t)
	put(t, ws, "memory/seed.md", "seed shared\n")
	found(t, env, "shared")
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				b, _ := json.Marshal(map[string]any{"query": "shared unique3"})
				if _, err := tools.Invoke(context.Background(), env, tools.Call{ID: "memory_search", Args: b}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 40 {
		put(t, ws, fmt.Sprintf("memory/d%d/n%02d.md", i%4, i), fmt.Sprintf("shared unique%d\n", i))
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		if got := found(t, env, fmt.Sprintf("unique%d", i)); len(got) != 1 || got[0] != fmt.Sprintf("memory/d%d/n%02d.md", i%4, i) {
			t.Fatalf("unique%d: %v", i, got)
		}
	}
}

// The index file deleted while the gateway holds it open (rm -r
// ~/.openclaw/memory) is opened afresh, not kept as an unlinked copy.
func TestServiceReopensDeletedIndex(t *testing.T) {
	env, svc, ws := gatewayEnv(t)
	put(t, ws, "memory/a.md", "alpha\n")
	found(t, env, "alpha")
	path := live(t, svc).ix.path
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if got := found(t, env, "alpha"); len(got) != 1 {
		t.Fatalf("after the index was deleted: %v", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no index file again: %v", err)
	}
}
