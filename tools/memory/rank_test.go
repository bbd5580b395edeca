package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rankVocab mixes frequent and rare words, case and accent variants (one
// FTS5 term each once folded), digits and words the tokenizer splits.
var rankVocab = strings.Fields("budget Budget BUDGET kiosk café Café cafe CAFÉ naïve naive résumé resume " +
	"meeting alice bob rome flight hotel doctor garden tomatoes invoice contract design database " +
	"cache latency deploy server backup laptop battery guitar recipe pasta coffee tea 2026 42 x1 " +
	"straße strasse Ωmega omega zebra quokka narwhal axolotl")

// rankCorpus writes n notes drawn from rankVocab with a skewed frequency
// (a few words in most notes, most words in few), some long enough for
// several chunks, some identical (ties), and returns the synced index.
func rankCorpus(t *testing.T, seed uint64, n int) *Index {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ws := t.TempDir()
	dir := filepath.Join(ws, "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	word := func() string {
		// Zipf-like: low indexes far more often.
		i := int(float64(len(rankVocab)) * r.Float64() * r.Float64() * r.Float64())
		return rankVocab[min(i, len(rankVocab)-1)]
	}
	for i := range n {
		var b strings.Builder
		lines := 1 + r.IntN(6)
		if r.IntN(10) == 0 {
			lines = 40 + r.IntN(60) // several chunks
		}
		for range lines {
			for w := range 3 + r.IntN(12) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word())
			}
			b.WriteByte('\n')
		}
		body := b.String()
		switch {
		case i%17 == 5:
			body = "budget kiosk\n" // many identical notes: equal ranks
		case i%13 == 3:
			body = "quokka axolotl\n" // identical and the best for their words: ties at the cut
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.sqlite"), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Edit and delete some notes, so rowids have gaps and the FTS index
	// has deletions merged in.
	for i := 0; i < n; i += 7 {
		p := filepath.Join(dir, fmt.Sprintf("n%04d.md", i))
		if i%2 == 0 {
			os.Remove(p)
		} else {
			os.WriteFile(p, []byte("edited "+word()+" "+word()+"\n"), 0o644)
			os.Chtimes(p, time.Now(), time.Now().Add(time.Hour))
		}
	}
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}

func rankQuery(r *rand.Rand) string {
	extra := []string{"quokka", "axolotl", "quokka", "nothingmatches", "foo_bar", "CAFÉ", "Straße", "42", "x1", "ΩMEGA", "budget-kiosk", "re:sume"}
	var q []string
	for range 1 + r.IntN(4) {
		if r.IntN(5) == 0 {
			q = append(q, extra[r.IntN(len(extra))])
		} else {
			q = append(q, rankVocab[r.IntN(len(rankVocab))])
		}
	}
	if r.IntN(6) == 0 {
		q = append(q, q[0]) // a repeated word is a second phrase
	}
	return strings.Join(q, " ")
}

// The ranks computed from the posting lists are the very doubles bm25()
// returns, for every chunk a query matches, in bm25()'s order.
func TestRankEqualsBM25EveryChunk(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		ix := rankCorpus(t, seed, 300)
		conn, err := ix.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rc := &rankConn{conn: conn}
		r := rand.New(rand.NewPCG(seed, 7))
		for range 60 {
			q := rankQuery(r)
			words, _ := queryTerms(q)
			if len(words) == 0 {
				continue
			}
			terms, err := rc.tokens(ctx, words)
			if err == errPhraseQuery {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := rc.topTerms(ctx, terms, 1<<30)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			phrases := make([]string, len(words))
			for i, w := range words {
				phrases[i] = ftsQuote(w)
			}
			rows, err := conn.QueryContext(ctx, `SELECT rowid, bm25(chunks_fts) AS r FROM chunks_fts
				WHERE chunks_fts MATCH ? ORDER BY r, rowid`, strings.Join(phrases, " OR "))
			if err != nil {
				t.Fatal(err)
			}
			var want []ranked
			for rows.Next() {
				var x ranked
				if err := rows.Scan(&x.id, &x.rank); err != nil {
					t.Fatal(err)
				}
				want = append(want, x)
			}
			rows.Close()
			if len(got) != len(want) {
				t.Fatalf("seed %d %q: %d chunks ranked, bm25() matches %d", seed, q, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("seed %d %q: #%d is %+v, bm25() says %+v", seed, q, i, got[i], want[i])
				}
			}
			// The best k are the chunks SQLite's ORDER BY … LIMIT k keeps,
			// ties at the cut included (the search's candidate cut).
			for _, k := range []int{1, 3, 8, 24} {
				top, err := rc.topTerms(ctx, terms, k)
				if err != nil {
					t.Fatal(err)
				}
				rows, err := conn.QueryContext(ctx, `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?
					ORDER BY bm25(chunks_fts) LIMIT ?`, strings.Join(phrases, " OR "), k)
				if err != nil {
					t.Fatal(err)
				}
				kept := map[int64]bool{}
				for rows.Next() {
					var id int64
					rows.Scan(&id)
					kept[id] = true
				}
				rows.Close()
				if len(top) != len(kept) {
					t.Fatalf("seed %d %q top %d: %d kept, SQLite keeps %d", seed, q, k, len(top), len(kept))
				}
				for _, x := range top {
					if !kept[x.id] {
						t.Fatalf("seed %d %q top %d: chunk %d kept, SQLite keeps %v", seed, q, k, x.id, kept)
					}
				}
			}
		}
		conn.Close()
	}
}

// Searches give the same results (paths, lines, scores, snippets, order)
// whether the words are ranked from the posting lists or by bm25() in SQL,
// at every result count, ties at the cut included.
func TestSearchSameEitherRanking(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		ix := rankCorpus(t, 100+seed, 400)
		r := rand.New(rand.NewPCG(seed, 11))
		for range 80 {
			q := rankQuery(r)
			n := 1 + r.IntN(30)
			ix.sqlRank = true
			want, err := ix.Search(ctx, q, n, 0, rerank{})
			if err != nil {
				t.Fatal(err)
			}
			ix.sqlRank = false
			got, err := ix.Search(ctx, q, n, 0, rerank{})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Fatalf("seed %d %q max %d:\n posting lists %s\n bm25() in SQL %s", seed, q, n, g, w)
			}
		}
	}
}

// meta 'lengths' is kept equal to FTS5's docsize table by every sync that
// changes chunks (edits, deletions, rebuilds), and dropped by a reset.
func TestLengthsFollowDocsize(t *testing.T) {
	ctx := context.Background()
	ix := rankCorpus(t, 5, 200)
	check := func(what string) {
		t.Helper()
		ids, ns, err := queryLengths(ctx, ix.db, `SELECT id, sz FROM chunks_fts_docsize`)
		if err != nil {
			t.Fatal(err)
		}
		var blob []byte
		if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='lengths'`).Scan(&blob); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		d, ok := decodeLengths(blob, int64(len(ids)))
		if !ok {
			t.Fatalf("%s: lengths for %d chunks unreadable", what, len(ids))
		}
		for i, id := range ids {
			if n, ok := d.get(id); !ok || n != ns[i] {
				t.Fatalf("%s: chunk %d: %d %v, docsize says %d", what, id, n, ok, ns[i])
			}
		}
	}
	check("built")
	os.WriteFile(filepath.Join(ix.root, "memory", "n0001.md"), []byte("one two three four five six\n"), 0o644)
	os.Remove(filepath.Join(ix.root, "memory", "n0002.md"))
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("edited")
	if err := ix.reset(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	ix.db.QueryRowContext(ctx, `SELECT count(*) FROM meta WHERE key='lengths'`).Scan(&n)
	if n != 0 {
		t.Fatal("reset kept the lengths")
	}
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
}
