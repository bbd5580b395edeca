package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/memory"
)

// newEnv returns an env with a fresh state dir whose default workspace
// (<state>/workspace) holds the given notes.
func newEnv(t testing.TB, notes map[string]string) (*tools.Env, string) {
	t.Helper()
	state := t.TempDir()
	ws := filepath.Join(state, "workspace")
	for rel, body := range notes {
		writeNote(t, ws, rel, body)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// Workspace is the CLI's working directory; memory must ignore it.
	return &tools.Env{Config: config.Empty(), StateDir: state, Workspace: t.TempDir()}, ws
}

func writeNote(t testing.TB, ws, rel, body string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func invoke(t testing.TB, env *tools.Env, id string, params any) (gjson.Result, error) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: id, Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out), nil
}

func search(t testing.TB, env *tools.Env, q string) []gjson.Result {
	t.Helper()
	r, err := invoke(t, env, "memory_search", map[string]any{"query": q})
	if err != nil {
		t.Fatalf("memory_search %q: %v", q, err)
	}
	return r.Get("details.results").Array()
}

func paths(hits []gjson.Result) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Get("path").String())
	}
	return out
}

func TestSearchRanksTheNoteWithTheTerms(t *testing.T) {
	notes := map[string]string{
		"MEMORY.md":              "# Preferences\nThe user prefers green tea and short answers.\n",
		"memory/2026-03-01.md":   "# Standup\nDiscussed the release schedule.\nNothing about money.\n",
		"memory/2026-03-02.md":   "# Budget review\nThe quarterly budget for the kiosk project was approved.\nBudget owner: Alice.\n",
		"memory/people/alice.md": "# Alice\nAlice runs the kiosk project.\n",
	}
	for i := range 20 { // filler so BM25's idf has a corpus to work with
		notes[fmt.Sprintf("memory/filler/%02d.md", i)] = fmt.Sprintf("# Day %d\nRoutine work on documentation and tests.\n", i)
	}
	env, _ := newEnv(t, notes)
	hits := search(t, env, "kiosk budget")
	if len(hits) < 2 {
		t.Fatalf("want at least 2 hits, got %v", paths(hits))
	}
	if got := hits[0].Get("path").String(); got != "memory/2026-03-02.md" {
		t.Fatalf("first hit %s, want memory/2026-03-02.md (all: %v)", got, paths(hits))
	}
	h := hits[0]
	if h.Get("startLine").Int() != 1 || h.Get("endLine").Int() != 3 {
		t.Errorf("lines %d-%d, want 1-3", h.Get("startLine").Int(), h.Get("endLine").Int())
	}
	if s := h.Get("score").Float(); s <= 0 || s > 1 {
		t.Errorf("score %v outside (0,1]", s)
	}
	if !strings.Contains(h.Get("snippet").String(), "quarterly budget") {
		t.Errorf("snippet %q", h.Get("snippet").String())
	}
	if hits[0].Get("score").Float() < hits[1].Get("score").Float() {
		t.Errorf("results not sorted by score")
	}
	for _, p := range paths(hits) {
		if strings.Contains(p, "filler") || strings.Contains(p, "2026-03-01") {
			t.Errorf("unrelated note %s matched", p)
		}
	}
	// Keyword-only is said, not an error.
	r, _ := invoke(t, env, "memory_search", map[string]any{"query": "budget"})
	if r.Get("details.debug.embeddingBootstrap.degradedTo").String() != "keyword-only" {
		t.Errorf("no keyword-only note: %s", r.Get("details").Raw)
	}
}

func TestSearchSeesEditsAndDeletionsAtOnce(t *testing.T) {
	env, ws := newEnv(t, map[string]string{
		"memory/a.md": "# Notes\nThe wifi password is hunter2.\n",
		"memory/b.md": "# Other\nLunch at noon.\n",
	})
	if got := paths(search(t, env, "hunter2")); len(got) != 1 || got[0] != "memory/a.md" {
		t.Fatalf("before edit: %v", got)
	}
	writeNote(t, ws, "memory/a.md", "# Notes\nThe wifi password changed to correcthorsebattery.\n")
	if got := paths(search(t, env, "correcthorsebattery")); len(got) != 1 || got[0] != "memory/a.md" {
		t.Fatalf("edited text not found: %v", got)
	}
	if got := paths(search(t, env, "hunter2")); len(got) != 0 {
		t.Fatalf("old text still found: %v", got)
	}
	// A new note is found, a deleted one is gone.
	writeNote(t, ws, "memory/deep/c.md", "Zebra crossing on Elm street.\n")
	if got := paths(search(t, env, "zebra")); len(got) != 1 || got[0] != "memory/deep/c.md" {
		t.Fatalf("new note: %v", got)
	}
	if err := os.Remove(filepath.Join(ws, "memory/deep/c.md")); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, env, "zebra")); len(got) != 0 {
		t.Fatalf("deleted note still found: %v", got)
	}
	// memory index reports what it did; --force rebuilds.
	r, err := invoke(t, env, "memory_index", map[string]any{"force": true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("details.files").Int() != 2 || r.Get("details.indexed").Int() != 2 {
		t.Errorf("force index: %s", r.Get("details").Raw)
	}
	if got := paths(search(t, env, "lunch")); len(got) != 1 {
		t.Errorf("after rebuild: %v", got)
	}
}

func TestSearchIndexesOnlyMemoryFiles(t *testing.T) {
	env, ws := newEnv(t, map[string]string{
		"MEMORY.md":        "Evergreen: platypus facts.\n",
		"notes.md":         "platypus outside memory\n",
		"memory/x.txt":     "platypus in a txt file\n",
		"memory/inside.md": "platypus inside\n",
	})
	outside := t.TempDir()
	writeNote(t, outside, "secret.md", "platypus secret outside the workspace\n")
	writeNote(t, outside, "dir/also.md", "platypus linked dir\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "memory", "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), filepath.Join(ws, "memory", "linkdir")); err != nil {
		t.Fatal(err)
	}
	got := paths(search(t, env, "platypus"))
	want := map[string]bool{"MEMORY.md": true, "memory/inside.md": true}
	if len(got) != len(want) {
		t.Fatalf("indexed %v, want only MEMORY.md and memory/inside.md", got)
	}
	for _, p := range got {
		if !want[p] {
			t.Errorf("indexed %s", p)
		}
	}
}

func TestSearchFindsCJK(t *testing.T) {
	env, _ := newEnv(t, map[string]string{
		"memory/zh.md": "# 会议记录\n我们今天开会讨论了明年的预算问题。\n",
		"memory/ja.md": "# メモ\n東京で新しいプロジェクトを始めます。\n",
		"memory/en.md": "# Notes\nNothing in Chinese here.\n",
	})
	for q, want := range map[string]string{
		"预算":       "memory/zh.md", // two characters: no trigram
		"讨论了明年的预算": "memory/zh.md",
		"プロジェクト":   "memory/ja.md",
		"東京":       "memory/ja.md",
	} {
		got := paths(search(t, env, q))
		if len(got) == 0 || got[0] != want {
			t.Errorf("%q: got %v, want %s first", q, got, want)
		}
		for _, p := range got {
			if p == "memory/en.md" {
				t.Errorf("%q matched the English note", q)
			}
		}
	}
}

func TestSearchEmptyQueryAndDisabled(t *testing.T) {
	env, _ := newEnv(t, map[string]string{"MEMORY.md": "anything\n"})
	if got := search(t, env, "   "); len(got) != 0 {
		t.Errorf("blank query: %v", paths(got))
	}
	// FTS syntax in a query is text, never a query error.
	if _, err := invoke(t, env, "memory_search", map[string]any{"query": `"NEAR( anything* OR -`}); err != nil {
		t.Errorf("syntax in query: %v", err)
	}
	env.Config.Doc["agents"] = map[string]any{"defaults": map[string]any{"memorySearch": map[string]any{"enabled": false}}}
	if _, err := invoke(t, env, "memory_search", map[string]any{"query": "anything"}); err == nil ||
		!strings.Contains(err.Error(), "disabled") {
		t.Errorf("disabled: %v", err)
	}
}

func TestGetReturnsExactLines(t *testing.T) {
	env, _ := newEnv(t, map[string]string{
		"memory/log.md": "one\ntwo\r\nthree\nfour\nfive\n",
		"MEMORY.md":     "\uFEFFtop\n",
	})
	cases := []struct {
		from, lines any
		want        string
	}{
		{nil, nil, "one\ntwo\nthree\nfour\nfive"},
		{2, 2, "two\nthree"},
		{4, nil, "four\nfive"},
		{nil, 1, "one"},
		{0, 0, "one"}, // clamped to 1 and 1, as the original
		{5, 10, "five"},
		{9, 2, ""},
	}
	for _, c := range cases {
		p := map[string]any{"path": "memory/log.md"}
		if c.from != nil {
			p["from"] = c.from
		}
		if c.lines != nil {
			p["lines"] = c.lines
		}
		r, err := invoke(t, env, "memory_get", p)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if got := r.Get("details.text").String(); got != c.want {
			t.Errorf("from %v lines %v: %q, want %q", c.from, c.lines, got, c.want)
		}
		if r.Get("details.path").String() != "memory/log.md" {
			t.Errorf("path %s", r.Get("details.path").String())
		}
	}
	r, err := invoke(t, env, "memory_get", map[string]any{"path": "MEMORY.md"})
	if err != nil || r.Get("details.text").String() != "top" {
		t.Errorf("MEMORY.md: %v %s", err, r.Raw)
	}
}

// notMemoryFile is memory_get's refusal of a path outside the memory set.
const notMemoryFile = "not a memory file: only MEMORY.md (or memory.md) and *.md files under memory/ in the " +
	"agent workspace can be read (regular files, no symlinks or hard links); memory search lists them"

func TestGetIsConfinedToMemoryFiles(t *testing.T) {
	env, ws := newEnv(t, map[string]string{
		"memory/ok.md": "fine\n",
		"notes.md":     "not memory\n",
		"memory/x.txt": "not markdown\n",
	})
	outside := t.TempDir()
	writeNote(t, outside, "secret.md", "secret\n")
	writeNote(t, outside, "d/inner.md", "secret too\n")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "memory", "link.md")))
	must(os.Symlink(filepath.Join(outside, "d"), filepath.Join(ws, "memory", "d")))
	must(os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "MEMORY.md")))
	must(os.Mkdir(filepath.Join(ws, "memory", "dir.md"), 0o755))
	for _, p := range []string{
		"notes.md", "memory/x.txt", "memory/link.md", "memory/d/inner.md", "MEMORY.md",
		"../secret.md", "memory/../notes.md", "memory/../../" + filepath.Base(outside) + "/secret.md",
		filepath.Join(outside, "secret.md"), "memory/missing.md", "memory/dir.md", "memory", "",
		"/etc/passwd",
	} {
		_, err := invoke(t, env, "memory_get", map[string]any{"path": p})
		te := tools.AsError(err)
		// One message for every refused path (it never tells whether a
		// file outside exists), saying what can be read; "" is missing.
		want := notMemoryFile
		if p == "" {
			want = "path required"
		}
		if te == nil || te.Message != want || te.Code != tools.CodeInvalidParams {
			t.Errorf("%q: got %v, want %q", p, err, want)
			continue
		}
		if d, _ := json.Marshal(te.Details); !strings.Contains(string(d), `"disabled":true`) {
			t.Errorf("%q: details %s", p, d)
		}
	}
	// An absolute path inside the memory set is fine.
	r, err := invoke(t, env, "memory_get", map[string]any{"path": filepath.Join(ws, "memory", "ok.md")})
	if err != nil || r.Get("details.text").String() != "fine" || r.Get("details.path").String() != "memory/ok.md" {
		t.Errorf("absolute: %v %s", err, r.Raw)
	}
}

// query.hybrid.temporalDecay makes an old daily note rank under a recent
// one with the same words (MEMORY.md is evergreen); off by default.
func TestTemporalDecayRanksRecentDailyNotesFirst(t *testing.T) {
	now := time.Now()
	old := "memory/" + now.AddDate(0, 0, -60).Format("2006-01-02") + ".md"
	recent := "memory/" + now.AddDate(0, 0, -1).Format("2006-01-02") + ".md"
	body := "the staging database password rotates monthly\n"
	notes := map[string]string{old: body, recent: body, "MEMORY.md": body}
	for i := range 8 { // notes without the words give them weight (BM25)
		notes[fmt.Sprintf("memory/topics/t%d.md", i)] = fmt.Sprintf("lunch order number %d: soup and bread\n", i)
	}
	env, _ := newEnv(t, notes)
	scores := func() map[string]float64 {
		out := map[string]float64{}
		for _, h := range search(t, env, "staging database password") {
			out[h.Get("path").String()] = h.Get("score").Float()
		}
		return out
	}
	plain := scores()
	if len(plain) != 3 || plain[old] != plain[recent] || plain[old] != plain["MEMORY.md"] {
		t.Fatalf("without decay the three equal notes should score the same: %v", plain)
	}
	env.Config = &config.Config{Doc: map[string]any{"agents": map[string]any{"defaults": map[string]any{
		"memorySearch": map[string]any{"query": map[string]any{"hybrid": map[string]any{
			"temporalDecay": map[string]any{"enabled": true, "halfLifeDays": 30}}}}}}}}
	hits := search(t, env, "staging database password")
	got := paths(hits)
	if len(got) != 3 || got[2] != old {
		t.Fatalf("with decay the 60-day-old note should rank last: %v", got)
	}
	decayed := scores()
	if r := decayed[old] / plain[old]; r < 0.2 || r > 0.3 {
		t.Fatalf("60 days at a 30-day half-life should keep ~1/4 of the score: %v -> %v", plain[old], decayed[old])
	}
	if decayed["MEMORY.md"] != plain["MEMORY.md"] {
		t.Fatalf("MEMORY.md is evergreen: %v -> %v", plain["MEMORY.md"], decayed["MEMORY.md"])
	}
}

// Issue 30 item 24: keyword-only scores of words found in most notes are
// tiny; the human form shows them, not "0.000", in the order they rank.
func TestRenderSearchShowsTinyScores(t *testing.T) {
	env, _ := newEnv(t, map[string]string{
		"memory/a.md": "# Budget review\nThe quarterly budget for the kiosk project was approved.\nBudget owner: Alice.\n",
		"memory/b.md": "# Standup\nkiosk demo on friday, budget too\n",
		"MEMORY.md":   "# Prefs\nThe user prefers green tea.\n",
	})
	res, err := invoke(t, env, "memory_search", map[string]any{"query": "kiosk budget"})
	if err != nil {
		t.Fatal(err)
	}
	hits := res.Get("details.results").Array()
	if len(hits) != 2 || hits[0].Get("score").Float() >= 0.0005 {
		t.Fatalf("want two hits with tiny scores for this corpus: %s", res.Get("details.results").Raw)
	}
	var b bytes.Buffer
	if err := tools.Lookup("memory_search").Render(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(b.String(), "\n") {
		i := strings.Index(l, "(score ")
		if i < 0 {
			continue
		}
		lines++
		shown := strings.TrimSuffix(l[i+len("(score "):], ")")
		f, err := strconv.ParseFloat(shown, 64)
		if err != nil || f <= 0 {
			t.Errorf("score shown as %q in %q", shown, l)
		}
	}
	if lines != 2 {
		t.Errorf("want 2 score lines:\n%s", b.String())
	}
}
