package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

var benchWords = strings.Fields("budget kiosk project release schedule meeting alice bob travel rome flight " +
	"hotel doctor appointment garden tomatoes invoice client contract review design database index " +
	"cache latency deploy server backup laptop battery music guitar lesson recipe pasta coffee tea")

// benchCorpus writes n generated notes (the shape of the latency command's
// corpus: 13 lines, ~800 bytes) under <state>/workspace/memory and returns
// an env whose default workspace holds them.
func benchCorpus(b *testing.B, n int) *tools.Env {
	b.Helper()
	state := b.TempDir()
	dir := filepath.Join(state, "workspace", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Note %d\n", i)
		for l := range 12 {
			fmt.Fprintf(&sb, "Line %d: the %s and the %s were discussed with %s on day %d.\n", l,
				benchWords[(i*7+l)%len(benchWords)], benchWords[(i*13+l*3)%len(benchWords)], benchWords[(i+l*5)%len(benchWords)], i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.md", i)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return &tools.Env{Config: config.Empty(), StateDir: state, Workspace: b.TempDir()}
}

// benchSearch is one memory_search call through tools.Invoke; its hits.
func benchSearch(b *testing.B, env *tools.Env, q string) []gjson.Result {
	b.Helper()
	args, _ := json.Marshal(map[string]any{"query": q})
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "memory_search", Args: args})
	if err != nil {
		b.Fatalf("memory_search %q: %v", q, err)
	}
	return gjson.GetBytes(out, "details.results").Array()
}

// BenchmarkWarmSearch is one memory_search call as the CLI makes it (open
// the index, check every note for changes, query), with the index already
// built and no note changed; where=gateway is the same call in the gateway,
// whose memory service keeps the index open and watches the notes.
func BenchmarkWarmSearch(b *testing.B) {
	for _, where := range []string{"cli", "gateway"} {
		for _, n := range []int{400, 4000, 40000} {
			b.Run(fmt.Sprintf("where=%s/notes=%d", where, n), func(b *testing.B) {
				env := benchCorpus(b, n)
				if where == "gateway" {
					svc, err := newService(env)
					if err != nil {
						b.Fatal(err)
					}
					if err := svc.Start(context.Background()); err != nil {
						b.Fatal(err)
					}
					defer svc.Stop(context.Background())
					env.Services = map[string]tools.Service{serviceKey.Name(): svc}
				}
				benchSearch(b, env, "warm up")
				// Notes written within the racy window (2 s) of a sync are
				// re-hashed by the next ones; measure the steady state.
				time.Sleep(2100 * time.Millisecond)
				benchSearch(b, env, "settle")
				i := 0
				for b.Loop() {
					q := benchWords[i%len(benchWords)] + " " + benchWords[(i*3+1)%len(benchWords)]
					if hits := benchSearch(b, env, q); len(hits) == 0 {
						b.Fatalf("no hits for %q", q)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkIndexBuild is the first search of a fresh index: every note
// read, chunked and inserted.
func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range []int{400, 4000, 40000} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			env := benchCorpus(b, n)
			for b.Loop() {
				b.StopTimer()
				if err := os.RemoveAll(filepath.Join(env.StateDir, "memory")); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				benchSearch(b, env, "budget")
			}
		})
	}
}
