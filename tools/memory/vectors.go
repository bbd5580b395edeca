package memory

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
)

// embeddingCacheSQL holds one vector per chunk content and embedding model
// (provider/model): an edited note re-embeds only chunks whose text
// changed, and switching models back and forth keeps both spaces. Vectors
// are stored normalized (unit length) as little-endian float32 blobs, so
// cosine similarity is a dot product.
const embeddingCacheSQL = `
CREATE TABLE IF NOT EXISTS embedding_cache (
  hash TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL, vec BLOB NOT NULL,
  updated_at INTEGER NOT NULL, PRIMARY KEY (hash, model));
`

// defaultOrphanVectors is how many vectors of chunks no longer in any note
// are kept (memorySearch.cache.maxEntries overrides; cache.enabled false
// keeps none). Vectors of current chunks are never pruned.
const defaultOrphanVectors = 10000

// EmbedStats says what embedMissing did.
type EmbedStats struct {
	Embedded int `json:"embedded"` // chunk texts sent to the provider
	Requests int `json:"requests"`
	Pruned   int `json:"pruned,omitempty"`
}

// embedMissing embeds the chunks that have no vector for emb's model yet,
// batch by batch; each batch is stored as it arrives, so a failure later
// keeps what was done. No transaction is held while the provider works.
// prune (after a sync that changed notes) drops old orphaned vectors.
func (ix *Index) embedMissing(ctx context.Context, emb *providers.Embedder, prune bool, keepOrphans int) (EmbedStats, error) {
	var st EmbedStats
	model := emb.Key()
	rows, err := ix.db.QueryContext(ctx, `SELECT c.hash, MIN(c.text) FROM chunks c
		LEFT JOIN embedding_cache e ON e.hash = c.hash AND e.model = ?
		WHERE e.hash IS NULL GROUP BY c.hash ORDER BY MIN(c.id)`, model)
	if err != nil {
		return st, fmt.Errorf("memory embeddings: %w", err)
	}
	var hashes, texts []string
	for rows.Next() {
		var h, t string
		if err := rows.Scan(&h, &t); err != nil {
			rows.Close()
			return st, fmt.Errorf("memory embeddings: %w", err)
		}
		hashes = append(hashes, h)
		texts = append(texts, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("memory embeddings: %w", err)
	}
	if len(texts) > 0 {
		_, err = emb.EmbedDocuments(ctx, texts, func(start int, vecs [][]float32) error {
			st.Requests++
			st.Embedded += len(vecs)
			return ix.storeVectors(ctx, model, hashes[start:start+len(vecs)], vecs)
		})
		if err != nil {
			return st, err
		}
	}
	if !prune && st.Embedded == 0 {
		return st, nil
	}
	n, err := ix.pruneVectors(ctx, keepOrphans)
	st.Pruned = n
	return st, err
}

func (ix *Index) storeVectors(ctx context.Context, model string, hashes []string, vecs [][]float32) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory embeddings: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO embedding_cache(hash,model,dims,vec,updated_at) VALUES (?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("memory embeddings: %w", err)
	}
	defer ins.Close()
	now := time.Now().UnixMilli()
	for i, v := range vecs {
		if _, err := ins.ExecContext(ctx, hashes[i], model, len(v), encodeVector(v), now); err != nil {
			return fmt.Errorf("memory embeddings: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory embeddings: commit: %w", err)
	}
	return nil
}

// pruneVectors drops the oldest vectors of chunks no note has any more,
// beyond keep.
func (ix *Index) pruneVectors(ctx context.Context, keep int) (int, error) {
	var orphans int
	const orphan = `NOT EXISTS (SELECT 1 FROM chunks c WHERE c.hash = embedding_cache.hash)`
	if err := ix.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM embedding_cache WHERE `+orphan).Scan(&orphans); err != nil {
		return 0, fmt.Errorf("memory embeddings: %w", err)
	}
	if orphans <= keep {
		return 0, nil
	}
	res, err := ix.db.ExecContext(ctx, `DELETE FROM embedding_cache WHERE rowid IN (
		SELECT rowid FROM embedding_cache WHERE `+orphan+` ORDER BY updated_at LIMIT ?)`, orphans-keep)
	if err != nil {
		return 0, fmt.Errorf("memory embeddings: prune: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// vectorHits returns the limit chunks most similar to q (cosine), best
// first, with their similarity as the score.
func (ix *Index) vectorHits(ctx context.Context, model string, q []float32, limit int) (map[int64]*Hit, error) {
	q = normalize(q)
	out := map[int64]*Hit{}
	if q == nil {
		return out, nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT c.id, e.vec FROM chunks c
		JOIN embedding_cache e ON e.hash = c.hash AND e.model = ? WHERE e.dims = ?`, model, len(q))
	if err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	type scored struct {
		id  int64
		sim float64
	}
	var all []scored
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			rows.Close()
			return nil, fmt.Errorf("memory search: %w", err)
		}
		all = append(all, scored{id, dot(q, blob)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sim != all[j].sim {
			return all[i].sim > all[j].sim
		}
		return all[i].id < all[j].id
	})
	if len(all) > limit {
		all = all[:limit]
	}
	get, err := ix.db.PrepareContext(ctx, `SELECT path, start_line, end_line, text FROM chunks WHERE id = ?`)
	if err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	defer get.Close()
	for _, s := range all {
		h := Hit{Source: "memory"}
		var text string
		if err := get.QueryRowContext(ctx, s.id).Scan(&h.Path, &h.StartLine, &h.EndLine, &text); err != nil {
			return nil, fmt.Errorf("memory search: %w", err)
		}
		h.Snippet = snippet(text)
		h.Score = s.sim
		out[s.id] = &h
	}
	return out, nil
}

// normalize returns v scaled to unit length (nil for a zero or non-finite
// vector, which matches nothing).
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil
	}
	n := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// encodeVector stores v normalized, four little-endian bytes a component.
func encodeVector(v []float32) []byte {
	v = normalize(v)
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// dot is the cosine of q (unit length) and a stored unit vector.
func dot(q []float32, blob []byte) float64 {
	if len(blob) != 4*len(q) {
		return 0
	}
	var s float64
	for i, x := range q {
		s += float64(x) * float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:])))
	}
	return s
}
