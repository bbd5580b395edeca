package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search defaults of the original.
const (
	defaultMaxResults   = 6
	candidateMultiplier = 4
	snippetChars        = 700
)

// Hit is one search result, the original's shape.
type Hit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet"`
	Source    string  `json:"source"`
	// The two legs' scores, in hybrid mode only (as the original's
	// merged results carry them).
	VectorScore *float64 `json:"vectorScore,omitempty"`
	TextScore   *float64 `json:"textScore,omitempty"`
	// chunk is the chunk's row id while hits are merged (not in results).
	chunk int64
}

// queryTerms splits a query into words for the word index and runs of CJK
// characters for the trigram index.
func queryTerms(q string) (words, cjk []string) {
	var cur []rune
	curCJK := false
	emit := func() {
		if len(cur) > 0 {
			if curCJK {
				cjk = append(cjk, string(cur))
			} else {
				words = append(words, string(cur))
			}
		}
		cur = cur[:0]
	}
	for _, r := range q {
		switch {
		case isCJK(r):
			if !curCJK {
				emit()
			}
			curCJK = true
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_':
			if curCJK {
				emit()
			}
			curCJK = false
			cur = append(cur, r)
		default:
			emit()
		}
	}
	emit()
	return words, cjk
}

// ftsQuote makes a term an FTS5 string (a phrase), so no query text is
// read as FTS syntax.
func ftsQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// bm25Score maps FTS5's rank (negative, lower is better) to 0..1 as the
// original does: r/(1+r) with r = -rank.
func bm25Score(rank float64) float64 {
	if rank < 0 {
		r := -rank
		return r / (1 + r)
	}
	return 1 / (1 + rank)
}

// Search ranks by keywords alone (no embeddings provider): BM25 over the
// word index and the CJK trigram index, minScore cut, best first.
func (ix *Index) Search(ctx context.Context, query string, maxResults int, minScore float64, rr rerank) ([]Hit, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return []Hit{}, nil
	}
	if maxResults <= 0 {
		maxResults = defaultMaxResults
	}
	best, err := ix.keywordHits(ctx, query, min(200, max(1, maxResults*candidateMultiplier)))
	if err != nil {
		return nil, err
	}
	all := make([]Hit, 0, len(best))
	for _, h := range best {
		all = append(all, *h)
	}
	return cutBelow(rr.apply(all), minScore, maxResults), nil
}

// cutBelow keeps, in order, the first maxResults hits scoring minScore or more.
func cutBelow(hits []Hit, minScore float64, maxResults int) []Hit {
	out := []Hit{}
	for _, h := range hits {
		if len(out) == maxResults {
			break
		}
		if h.Score >= minScore {
			out = append(out, h)
		}
	}
	return out
}

// keywordHits is the keyword leg: BM25 over the word index (the query's
// words ORed, as the original), and for CJK runs the trigram index (runs
// of three or more characters, by their trigrams) or a substring scan
// (shorter runs). A chunk found by both keeps its best score.
func (ix *Index) keywordHits(ctx context.Context, query string, limit int) (map[int64]*Hit, error) {
	words, runs := queryTerms(query)
	best := map[int64]*Hit{}
	add := func(id int64, h Hit) {
		if b, ok := best[id]; !ok || h.Score > b.Score {
			best[id] = &h
		}
	}
	if len(words) > 0 {
		if err := ix.rankWords(ctx, words, limit, add); err != nil {
			return nil, err
		}
	}
	var grams, short []string
	for _, r := range runs {
		rs := []rune(r)
		if len(rs) < 3 {
			short = append(short, r)
			continue
		}
		for i := 0; i+3 <= len(rs); i++ {
			grams = append(grams, ftsQuote(string(rs[i:i+3])))
		}
	}
	if len(grams) > 0 {
		if err := ix.collect(ctx, `SELECT c.id, c.path, c.start_line, c.end_line, c.text, m.r
			FROM (SELECT rowid AS id, bm25(chunks_cjk) AS r FROM chunks_cjk
			      WHERE chunks_cjk MATCH ? ORDER BY r LIMIT ?) AS m
			JOIN chunks c ON c.id = m.id ORDER BY m.r`,
			strings.Join(grams, " OR "), limit, add); err != nil {
			return nil, err
		}
	}
	for _, s := range short {
		// One or two characters have no trigram: scan the CJK chunks.
		// The score grows with the occurrences, n/(1+n), like the BM25 map.
		if err := ix.collectLike(ctx, s, limit, add); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// sqlWords ranks the words by bm25() in SQL (phrase queries; the
// reference rankWords is tested against).
func (ix *Index) sqlWords(ctx context.Context, words []string, limit int, add func(int64, Hit)) error {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ftsQuote(w)
	}
	// Rank inside the FTS table and join only the top rows: a common word
	// matches most chunks, and joining each before the sort read every
	// matching chunk's text.
	return ix.collect(ctx, `SELECT c.id, c.path, c.start_line, c.end_line, c.text, m.r
		FROM (SELECT rowid AS id, bm25(chunks_fts) AS r FROM chunks_fts
		      WHERE chunks_fts MATCH ? ORDER BY r LIMIT ?) AS m
		JOIN chunks c ON c.id = m.id ORDER BY m.r`,
		strings.Join(q, " OR "), limit, add)
}

// sortHits orders best first, then by path and line for a stable order.
func sortHits(hits []Hit) []Hit {
	sort.SliceStable(hits, func(i, j int) bool { return hitLess(&hits[i], &hits[j]) })
	return hits
}

func hitLess(a, b *Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.StartLine < b.StartLine
}

func (ix *Index) collect(ctx context.Context, q, match string, limit int, add func(int64, Hit)) error {
	rows, err := ix.db.QueryContext(ctx, q, match, limit)
	if err != nil {
		return fmt.Errorf("memory search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var h Hit
		var text string
		var rank float64
		if err := rows.Scan(&id, &h.Path, &h.StartLine, &h.EndLine, &text, &rank); err != nil {
			return fmt.Errorf("memory search: %w", err)
		}
		h.Score = round(bm25Score(rank))
		h.Snippet = snippet(text)
		h.Source = "memory"
		add(id, h)
	}
	return rows.Err()
}

func (ix *Index) collectLike(ctx context.Context, s string, limit int, add func(int64, Hit)) error {
	pat := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path, start_line, end_line, text FROM chunks
		WHERE cjk = 1 AND text LIKE ? ESCAPE '\' LIMIT ?`, pat, limit*4)
	if err != nil {
		return fmt.Errorf("memory search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var h Hit
		var text string
		if err := rows.Scan(&id, &h.Path, &h.StartLine, &h.EndLine, &text); err != nil {
			return fmt.Errorf("memory search: %w", err)
		}
		n := float64(strings.Count(text, s))
		if n == 0 {
			continue
		}
		h.Score = round(n / (1 + n))
		h.Snippet = snippet(text)
		h.Source = "memory"
		add(id, h)
	}
	return rows.Err()
}

// snippet is the chunk text cut to 700 characters (never inside a rune).
func snippet(s string) string {
	if utf8.RuneCountInString(s) <= snippetChars {
		return s
	}
	return string([]rune(s)[:snippetChars])
}

// round keeps scores readable (six decimals).
func round(f float64) float64 {
	return float64(int64(f*1e6+0.5)) / 1e6
}
