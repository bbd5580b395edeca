package memory

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The keyword leg's word ranking, done here instead of by bm25() in SQL.
//
// `SELECT … bm25(chunks_fts) … ORDER BY r LIMIT n` scores every chunk the
// query's words match, and for each one FTS5 looks its length up in
// chunks_fts_docsize through a prepared statement: at 40,000 notes a
// common word matches nearly all of them and that lookup was half of a
// warm search. Here the same numbers come from the same index: the posting
// list of each query term (fts5vocab 'instance', one query per term), the
// row count and total tokens (the averages record FTS5 itself reads) and
// the chunk lengths (the docsize table, read once, or kept by the gateway's
// memory service while the index is unchanged). The score of each chunk is
// FTS5's formula evaluated in the same order on the same doubles, the IDF's
// logarithm taken by SQLite's ln() (the libm FTS5 calls), so the ranks are
// the very values bm25() returns; the best n are kept with a heap, ties
// going to the lower rowid as SQLite's ORDER BY … LIMIT keeps them (the
// first met, and FTS5 yields rowids in ascending order). The differential
// tests compare both ways on generated corpora.
//
// A query word the tokenizer splits into several tokens ("foo_bar"), or
// into none, is a phrase query: those go through bm25() in SQL as before.

// ftsTokenizer is chunks_fts's tokenizer; query words are tokenized by a
// temporary table with the same one, so they fold exactly as FTS5 folds
// them when it parses a MATCH.
const ftsTokenizer = `unicode61 remove_diacritics 2`

// BM25 constants of FTS5's bm25() (k1, b). Variables, not constants: the
// expressions below must round at each step as FTS5's C does, never be
// folded exactly at compile time.
var bm25K1, bm25B = 1.2, 0.75

// rankCache keeps what a ranking reads that changes only when the index
// does (the gateway's memory service holds one per open index, valid for
// one PRAGMA data_version of its pinned connection).
type rankCache struct {
	version  int64
	stats    *ftsStats
	lengths  *docLengths
	postings map[string]postingList // by term, at most maxCachedPostings in all
	held     int
}

// maxCachedPostings bounds the posting lists a cache keeps (12 bytes each:
// 12 MiB), emptied when full; a common word at 40,000 notes has ~39,000.
const maxCachedPostings = 1 << 20

// ftsStats is FTS5's averages record: rows and total tokens.
type ftsStats struct{ rows, tokens int64 }

// docLengths maps chunk rowid to its length in tokens.
type docLengths struct {
	dense  []int32 // index rowid; -1 when absent
	sparse map[int64]int32
}

func (d *docLengths) get(id int64) (int32, bool) {
	if d.sparse != nil {
		v, ok := d.sparse[id]
		return v, ok
	}
	if id < 0 || id >= int64(len(d.dense)) || d.dense[id] < 0 {
		return 0, false
	}
	return d.dense[id], true
}

// errPhraseQuery: a query word is not exactly one token.
var errPhraseQuery = errors.New("phrase query")

// rankConn is a connection the ranking runs on: it holds the temporary
// tables (per connection in SQLite), and in the gateway the cache.
type rankConn struct {
	mu    sync.Mutex // the gateway's searches share the pinned connection
	conn  *sql.Conn
	cache *rankCache // nil: nothing kept between calls
	ready bool       // temporary tables created
}

const rankTempSQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_postings USING fts5vocab(main, chunks_fts, 'instance');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_query USING fts5(text, tokenize='` + ftsTokenizer + `');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_query_terms USING fts5vocab(temp, memory_query, 'instance');`

// rankWords is the word half of the keyword leg: the best limit chunks
// for the words (ORed), added best first. It runs on the gateway's pinned
// connection when the index has one, else on one from the pool; the reads
// share one read transaction, so a sync committing meanwhile is not seen
// half. Phrase queries, and tests comparing the two, take bm25() in SQL.
func (ix *Index) rankWords(ctx context.Context, words []string, limit int, add func(int64, Hit)) error {
	if ix.sqlRank {
		return ix.sqlWords(ctx, words, limit, add)
	}
	rc := ix.ranker
	if rc != nil {
		rc.mu.Lock()
		defer rc.mu.Unlock()
	} else {
		conn, err := ix.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("memory search: %w", err)
		}
		defer conn.Close()
		rc = &rankConn{conn: conn}
	}
	err := rc.rankWords(ctx, words, limit, add)
	if errors.Is(err, errPhraseQuery) {
		return ix.sqlWords(ctx, words, limit, add)
	}
	return err
}

func (rc *rankConn) rankWords(ctx context.Context, words []string, limit int, add func(int64, Hit)) error {
	terms, err := rc.tokens(ctx, words)
	if err != nil {
		return err
	}
	if _, err := rc.conn.ExecContext(ctx, `BEGIN`); err != nil { // deferred: a read transaction
		return fmt.Errorf("memory search: %w", err)
	}
	defer rc.conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`) //nolint:errcheck // read only
	top, err := rc.topTerms(ctx, terms, limit)
	if err != nil || len(top) == 0 {
		return err
	}
	ids := make([]int64, len(top))
	for i, r := range top {
		ids[i] = r.id
	}
	b, _ := json.Marshal(ids)
	rows, err := rc.conn.QueryContext(ctx, `SELECT id, path, start_line, end_line, text FROM chunks
		WHERE id IN (SELECT value FROM json_each(?))`, string(b))
	if err != nil {
		return fmt.Errorf("memory search: %w", err)
	}
	defer rows.Close()
	byID := make(map[int64]Hit, len(top))
	for rows.Next() {
		var id int64
		var h Hit
		var text string
		if err := rows.Scan(&id, &h.Path, &h.StartLine, &h.EndLine, &text); err != nil {
			return fmt.Errorf("memory search: %w", err)
		}
		h.Snippet, h.Source = snippet(text), "memory"
		byID[id] = h
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("memory search: %w", err)
	}
	for _, r := range top {
		if h, ok := byID[r.id]; ok {
			h.Score = round(bm25Score(r.rank))
			add(r.id, h)
		}
	}
	return nil
}

// ranked is one chunk of the best n: rowid and bm25() rank (lower is better).
type ranked struct {
	id   int64
	rank float64
}

// topTerms ranks the chunks holding any of the (folded) terms, each one
// FTS5 phrase ORed, and returns the best limit, best first, with the rank
// bm25() gives each.
func (rc *rankConn) topTerms(ctx context.Context, terms []string, limit int) ([]ranked, error) {
	if err := rc.refresh(ctx); err != nil {
		return nil, err
	}
	st, err := rc.stats(ctx)
	if err != nil || st.rows == 0 {
		return nil, err
	}
	lists := make([]postingList, len(terms))
	matched := 0
	for i, t := range terms {
		if lists[i], err = rc.postings(ctx, t); err != nil {
			return nil, err
		}
		matched += len(lists[i].docs)
	}
	if matched == 0 {
		return nil, nil
	}
	// IDF per phrase as FTS5 computes it; the logarithms in one query.
	args := make([]any, len(lists))
	cols := make([]string, len(lists))
	for i, l := range lists {
		n := int64(len(l.docs))
		args[i] = (float64(st.rows-n) + 0.5) / (float64(n) + 0.5)
		cols[i] = "ln(?)"
	}
	idf := make([]float64, len(lists))
	dst := make([]any, len(lists))
	for i := range idf {
		dst[i] = &idf[i]
	}
	if err := rc.conn.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ","), args...).Scan(dst...); err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	for i := range idf {
		if idf[i] <= 0 {
			idf[i] = 1e-6
		}
	}
	lens, err := rc.lengths(ctx, lists, matched, st)
	if err != nil {
		return nil, err
	}
	return scoreTop(lists, idf, lens, float64(st.tokens)/float64(st.rows), limit)
}

// scoreTop merges the posting lists (each ascending by rowid) and keeps
// the limit best ranks; a chunk whose length is unknown means the index
// changed under us, an error.
func scoreTop(lists []postingList, idf []float64, lens *docLengths, avgdl float64, limit int) ([]ranked, error) {
	k1, b := bm25K1, bm25B
	pos := make([]int, len(lists))
	freq := make([]float64, len(lists))
	h := &rankHeap{}
	for {
		next := int64(-1)
		for i, l := range lists {
			if pos[i] < len(l.docs) && (next < 0 || l.docs[pos[i]] < next) {
				next = l.docs[pos[i]]
			}
		}
		if next < 0 {
			break
		}
		for i, l := range lists {
			freq[i] = 0
			if pos[i] < len(l.docs) && l.docs[pos[i]] == next {
				freq[i] = float64(l.tf[pos[i]])
				pos[i]++
			}
		}
		n, ok := lens.get(next)
		if !ok {
			return nil, fmt.Errorf("memory search: chunk %d has no length in the index (changed during the search?)", next)
		}
		D := float64(n)
		// fts5Bm25Function: score += idf * ((f * (k1+1)) / (f + k1*(1 - b + b*D/avgdl))),
		// each product and quotient rounded as in C (no fused multiply-add).
		score := 0.0
		for i := range lists {
			f := freq[i]
			score = score + float64(idf[i]*(float64(f*(k1+1))/(f+float64(k1*(1-b+float64(b*D)/avgdl)))))
		}
		r := ranked{id: next, rank: float64(-1 * score)}
		switch {
		case h.Len() < limit:
			heap.Push(h, r)
		case r.rank < (*h)[0].rank: // ties keep the lower rowid, met first
			(*h)[0] = r
			heap.Fix(h, 0)
		}
	}
	out := make([]ranked, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(ranked)
	}
	return out, nil
}

// rankHeap is a max-heap on (rank, rowid): its top is the worst kept.
type rankHeap []ranked

func (h rankHeap) Len() int { return len(h) }
func (h rankHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank > h[j].rank
	}
	return h[i].id > h[j].id
}
func (h rankHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)   { *h = append(*h, x.(ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tokens folds each word as chunks_fts's tokenizer does; every word must
// be exactly one token, else errPhraseQuery.
func (rc *rankConn) tokens(ctx context.Context, words []string) ([]string, error) {
	if !rc.ready {
		if _, err := rc.conn.ExecContext(ctx, rankTempSQL); err != nil {
			return nil, fmt.Errorf("memory search: %w", err)
		}
		rc.ready = true
	}
	if _, err := rc.conn.ExecContext(ctx, `DELETE FROM temp.memory_query`); err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	vals := make([]string, len(words))
	args := make([]any, 0, 2*len(words))
	for i, w := range words {
		vals[i] = "(?,?)"
		args = append(args, i+1, w)
	}
	if _, err := rc.conn.ExecContext(ctx, `INSERT INTO temp.memory_query(rowid,text) VALUES `+strings.Join(vals, ","), args...); err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	rows, err := rc.conn.QueryContext(ctx, `SELECT doc, term FROM temp.memory_query_terms ORDER BY doc, offset`)
	if err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	defer rows.Close()
	out := make([]string, len(words))
	seen := make([]bool, len(words))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			return nil, fmt.Errorf("memory search: %w", err)
		}
		if doc < 1 || doc > len(words) || seen[doc-1] {
			return nil, errPhraseQuery
		}
		seen[doc-1], out[doc-1] = true, term
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	if slices.Contains(seen, false) {
		return nil, errPhraseQuery
	}
	return out, nil
}

// refresh drops the cache when the database changed since it was filled
// (PRAGMA data_version moves with every commit by another connection).
func (rc *rankConn) refresh(ctx context.Context) error {
	if rc.cache == nil {
		return nil
	}
	var v int64
	if err := rc.conn.QueryRowContext(ctx, `PRAGMA main.data_version`).Scan(&v); err != nil {
		return fmt.Errorf("memory search: %w", err)
	}
	if v != rc.cache.version {
		*rc.cache = rankCache{version: v}
	}
	return nil
}

func (rc *rankConn) stats(ctx context.Context) (ftsStats, error) {
	if rc.cache != nil && rc.cache.stats != nil {
		return *rc.cache.stats, nil
	}
	var blk []byte
	err := rc.conn.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 1`).Scan(&blk)
	if err == sql.ErrNoRows {
		return ftsStats{}, nil
	}
	if err != nil {
		return ftsStats{}, fmt.Errorf("memory search: %w", err)
	}
	if len(blk) == 0 { // a table that never held a row
		return ftsStats{}, nil
	}
	rows, n := ftsVarint(blk)
	tokens, m := ftsVarint(blk[n:])
	if n == 0 || m == 0 {
		return ftsStats{}, fmt.Errorf("memory search: unreadable FTS averages record")
	}
	st := ftsStats{rows: int64(rows), tokens: int64(tokens)}
	if rc.cache != nil {
		rc.cache.stats = &st
	}
	return st, nil
}

// postingList is one term's chunks, ascending, with the term's count in each.
type postingList struct {
	docs []int64
	tf   []uint32
}

func (rc *rankConn) postings(ctx context.Context, term string) (postingList, error) {
	c := rc.cache
	if c != nil {
		if l, ok := c.postings[term]; ok {
			return l, nil
		}
	}
	l, err := rc.readPostings(ctx, term)
	if err != nil || c == nil {
		return l, err
	}
	if c.postings == nil || c.held+len(l.docs) > maxCachedPostings {
		c.postings, c.held = map[string]postingList{}, 0
	}
	if len(l.docs) <= maxCachedPostings {
		c.postings[term] = l
		c.held += len(l.docs)
	}
	return l, nil
}

func (rc *rankConn) readPostings(ctx context.Context, term string) (postingList, error) {
	// One row (the rowids joined) instead of one per occurrence: the
	// per-row cost of database/sql is most of the read otherwise.
	var joined sql.NullString
	if err := rc.conn.QueryRowContext(ctx, `SELECT group_concat(doc, ' ') FROM temp.memory_postings WHERE term = ?`, term).Scan(&joined); err != nil {
		return postingList{}, fmt.Errorf("memory search: %w", err)
	}
	var l postingList
	s := joined.String
	prev := int64(-1)
	sorted := true
	var all []int64
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		f := s
		if i >= 0 {
			f, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		d, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return postingList{}, fmt.Errorf("memory search: posting %q: %w", f, err)
		}
		if d < prev {
			sorted = false
		}
		prev = d
		all = append(all, d)
	}
	if !sorted { // fts5vocab yields (term, doc, offset) order; never rely on it blindly
		slices.Sort(all)
	}
	for _, d := range all {
		if n := len(l.docs); n > 0 && l.docs[n-1] == d {
			l.tf[n-1]++
			continue
		}
		l.docs = append(l.docs, d)
		l.tf = append(l.tf, 1)
	}
	return l, nil
}

// lengths returns the lengths of the matched chunks: all of them from the
// cache or one read of the docsize table, or, when few chunks match and
// nothing is kept, just theirs.
func (rc *rankConn) lengths(ctx context.Context, lists []postingList, matched int, st ftsStats) (*docLengths, error) {
	if rc.cache != nil && rc.cache.lengths != nil {
		return rc.cache.lengths, nil
	}
	var blob []byte
	err := rc.conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='lengths'`).Scan(&blob)
	if err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	if d, ok := decodeLengths(blob, st.rows); ok {
		if rc.cache != nil {
			rc.cache.lengths = d
		}
		return d, nil
	}
	if rc.cache == nil && int64(matched)*8 < st.rows {
		var ids []int64
		for _, l := range lists {
			ids = append(ids, l.docs...)
		}
		b, _ := json.Marshal(ids)
		return rc.readLengths(ctx, `SELECT id, sz FROM chunks_fts_docsize WHERE id IN (SELECT value FROM json_each(?))`, string(b))
	}
	d, err := rc.readLengths(ctx, `SELECT id, sz FROM chunks_fts_docsize`)
	if err == nil && rc.cache != nil {
		rc.cache.lengths = d
	}
	return d, err
}

func (rc *rankConn) readLengths(ctx context.Context, q string, args ...any) (*docLengths, error) {
	ids, ns, err := queryLengths(ctx, rc.conn, q, args...)
	if err != nil {
		return nil, err
	}
	return newLengths(ids, ns), nil
}

// queryLengths reads (id, sz) rows of chunks_fts_docsize.
func queryLengths(ctx context.Context, q querier, query string, args ...any) (ids []int64, ns []int32, err error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("memory search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sz sql.RawBytes
		if err := rows.Scan(&id, &sz); err != nil {
			return nil, nil, fmt.Errorf("memory search: %w", err)
		}
		// One column: one varint, the column's token count (read by FTS5
		// as an int).
		v, n := ftsVarint(sz)
		if n == 0 {
			return nil, nil, fmt.Errorf("memory search: unreadable docsize of chunk %d", id)
		}
		ids = append(ids, id)
		ns = append(ns, int32(v))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("memory search: %w", err)
	}
	return ids, ns, nil
}

// writeLengths stores every chunk's length in meta 'lengths' (in the
// sync's transaction, after its changes), so a search reads one value
// instead of a docsize row per chunk: uvarint count, then per chunk by
// ascending rowid the uvarint rowid delta and length.
func writeLengths(ctx context.Context, tx *sql.Tx) error {
	ids, ns, err := queryLengths(ctx, tx, `SELECT id, sz FROM chunks_fts_docsize ORDER BY id`)
	if err != nil {
		return err
	}
	b := binary.AppendUvarint(make([]byte, 0, 4*len(ids)+8), uint64(len(ids)))
	prev := int64(0)
	for i, id := range ids {
		if id < prev || ns[i] < 0 {
			return fmt.Errorf("memory index: docsize row %d out of order", id)
		}
		b = binary.AppendUvarint(b, uint64(id-prev))
		b = binary.AppendUvarint(b, uint64(ns[i]))
		prev = id
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES ('lengths',?)`, b); err != nil {
		return fmt.Errorf("memory index: %w", err)
	}
	return nil
}

// decodeLengths reads meta 'lengths'; ok is false when absent or not for
// the rows FTS5 counts (then the docsize table is read).
func decodeLengths(b []byte, rows int64) (*docLengths, bool) {
	if len(b) == 0 {
		return nil, false
	}
	count, n := binary.Uvarint(b)
	if n <= 0 || int64(count) != rows || count > uint64(len(b)) {
		return nil, false
	}
	b = b[n:]
	ids := make([]int64, 0, count)
	ns := make([]int32, 0, count)
	id := int64(0)
	for range count {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, false
		}
		b = b[n:]
		v, m := binary.Uvarint(b)
		if m <= 0 || v > 1<<31-1 {
			return nil, false
		}
		b = b[m:]
		id += int64(d)
		ids = append(ids, id)
		ns = append(ns, int32(v))
	}
	if len(b) != 0 {
		return nil, false
	}
	return newLengths(ids, ns), true
}

// newLengths indexes the lengths by rowid: a slice when the rowids are
// dense enough, else a map.
func newLengths(ids []int64, ns []int32) *docLengths {
	maxID := int64(0)
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	d := &docLengths{}
	if maxID < 4*int64(len(ids))+1024 {
		d.dense = make([]int32, maxID+1)
		for i := range d.dense {
			d.dense[i] = -1
		}
		for i, id := range ids {
			if id >= 0 {
				d.dense[id] = ns[i]
			}
		}
		return d
	}
	d.sparse = make(map[int64]int32, len(ids))
	for i, id := range ids {
		d.sparse[id] = ns[i]
	}
	return d
}

// ftsVarint reads SQLite's varint (FTS5's sqlite3Fts5GetVarint): big-endian
// groups of seven bits, the high bit set on all but the last, the ninth
// byte whole. n is 0 when b ends inside it.
func ftsVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[8]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
