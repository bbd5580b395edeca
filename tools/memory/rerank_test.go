package memory

import (
	"math"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

func TestDecayFactorHalvesPerHalfLifeForDailyNotesOnly(t *testing.T) {
	r := rerank{decay: true, halfLife: 30, now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		path string
		want float64
	}{
		{"memory/2026-10-31.md", 0.5},
		{"memory/2026-10-01-standup.md", 0.25},
		{"memory/2026-11-30.md", 1},
		{"memory/2027-01-01.md", 1}, // a future date never boosts
		{"MEMORY.md", 1},            // evergreen
		{"memory/projects/notes.md", 1},
		{"memory/2026-13-45.md", 1}, // not a date
		{"2026-10-31.md", 1},        // not under memory/
	} {
		if got := r.decayFactor(tc.path); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: factor %v, want %v", tc.path, got, tc.want)
		}
	}
}

// Two near-identical chunks outrank a different one by score; MMR puts the
// different one second, plain ranking keeps the duplicates together.
func TestMMRSpreadsNearDuplicates(t *testing.T) {
	hits := func() []Hit {
		return []Hit{
			{Path: "memory/a.md", Score: 0.90, Snippet: "deploy the api with blue green switch on friday"},
			{Path: "memory/b.md", Score: 0.88, Snippet: "deploy the api with blue green switch on friday night"},
			{Path: "memory/c.md", Score: 0.80, Snippet: "rollback plan: keep the previous image tagged"},
		}
	}
	order := func(hs []Hit) string {
		s := ""
		for _, h := range hs {
			s += h.Path[len("memory/") : len("memory/")+1]
		}
		return s
	}
	if got := order(rerank{}.apply(hits())); got != "abc" {
		t.Fatalf("without MMR: %s, want abc", got)
	}
	if got := order(rerank{mmr: true, lambda: 0.7}.apply(hits())); got != "acb" {
		t.Fatalf("with MMR: %s, want acb", got)
	}
	// lambda 1 is pure relevance.
	if got := order(rerank{mmr: true, lambda: 1}.apply(hits())); got != "abc" {
		t.Fatalf("MMR lambda 1: %s, want abc", got)
	}
}

func TestJaccardOverWords(t *testing.T) {
	a, b := wordSet("Blue green, DEPLOY!"), wordSet("deploy blue")
	if got := jaccard(a, b); math.Abs(got-2.0/3) > 1e-9 {
		t.Fatalf("jaccard %v, want 2/3", got)
	}
	if got := jaccard(wordSet("记忆搜索"), wordSet("搜索")); math.Abs(got-0.5) > 1e-9 {
		t.Fatalf("CJK jaccard %v, want 0.5", got)
	}
}

func TestRerankSettings(t *testing.T) {
	cfg := &config.Config{Doc: map[string]any{"agents": map[string]any{
		"defaults": map[string]any{"memorySearch": map[string]any{"query": map[string]any{"hybrid": map[string]any{
			"mmr": map[string]any{"enabled": true, "lambda": 3}}}}},
		"list": []any{map[string]any{"id": "ops", "memorySearch": map[string]any{"query": map[string]any{"hybrid": map[string]any{
			"mmr":           map[string]any{"lambda": 0.5},
			"temporalDecay": map[string]any{"enabled": true, "halfLifeDays": 7}}}}}},
	}}}
	st, err := loadSettings(cfg, "main")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.rerank(time.Time{}); !r.mmr || r.lambda != 1 || r.decay || r.halfLife != 30 {
		t.Fatalf("defaults agent: %+v (lambda clamped to 1, decay off, half-life 30)", r)
	}
	st, err = loadSettings(cfg, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.rerank(time.Time{}); !r.mmr || r.lambda != 0.5 || !r.decay || r.halfLife != 7 {
		t.Fatalf("ops agent (merged over the defaults): %+v", r)
	}
	if r := (&settings{}).rerank(time.Time{}); r.mmr || r.decay {
		t.Fatalf("both are off unless enabled: %+v", r)
	}
}
