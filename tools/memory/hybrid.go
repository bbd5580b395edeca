package memory

import (
	"context"
	"strings"
)

// HybridSearch ranks with the query's embedding qvec (vectors of model)
// and, when hybrid is enabled, BM25: each leg brings its best candidates,
// merged by chunk as score = vectorWeight × cosine + textWeight × BM25
// score (the spec's §9.3). Hybrid disabled → vector similarity alone.
func (ix *Index) HybridSearch(ctx context.Context, query string, qvec []float32, model string,
	maxResults int, minScore float64, h hybrid, rr rerank) ([]Hit, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return []Hit{}, nil
	}
	if maxResults <= 0 {
		maxResults = defaultMaxResults
	}
	limit := h.candidates(maxResults)
	vec, err := ix.vectorHits(ctx, model, qvec, limit)
	if err != nil {
		return nil, err
	}
	if !h.enabled {
		hits := make([]Hit, 0, len(vec))
		for _, v := range vec {
			v.Score = round(v.Score)
			hits = append(hits, *v)
		}
		return cutBelow(rr.apply(hits), minScore, maxResults), nil
	}
	kw, err := ix.keywordHits(ctx, query, limit)
	if err != nil {
		return nil, err
	}
	return mergeHybrid(vec, kw, h, rr, maxResults, minScore), nil
}

// mergeHybrid merges the legs by chunk id. The keyword snippet is kept when
// a chunk is in both. Hits under minScore are cut; when that leaves fewer
// than maxResults, chunks matched by keyword alone fill the rest (a keyword
// hit with no vector can score at most textWeight, under the default
// minScore; the original keeps them rather than answer nothing).
func mergeHybrid(vec, kw map[int64]*Hit, h hybrid, rr rerank, maxResults int, minScore float64) []Hit {
	type entry struct {
		hit        Hit
		hasV, hasK bool
	}
	byID := map[int64]*entry{}
	for id, v := range vec {
		vs := round(v.Score)
		e := &entry{hit: *v, hasV: true}
		e.hit.VectorScore, e.hit.TextScore = &vs, new(float64)
		byID[id] = e
	}
	for id, k := range kw {
		ts := round(k.Score)
		e, ok := byID[id]
		if !ok {
			e = &entry{hit: *k}
			e.hit.VectorScore = new(float64)
			byID[id] = e
		}
		e.hasK = true
		e.hit.TextScore = &ts
		if k.Snippet != "" {
			e.hit.Snippet = k.Snippet
		}
	}
	hits := make([]Hit, 0, len(byID))
	for id, e := range byID {
		e.hit.Score = round(h.vectorWeight**e.hit.VectorScore + h.textWeight**e.hit.TextScore)
		e.hit.chunk = id
		hits = append(hits, e.hit)
	}
	// Decay and MMR may reorder the merged hits; entries follow that order.
	entries := make([]*entry, 0, len(hits))
	for _, hit := range rr.apply(hits) {
		e := byID[hit.chunk]
		e.hit = hit
		entries = append(entries, e)
	}
	out := []Hit{}
	strict := 0
	for _, e := range entries {
		if e.hit.Score >= minScore {
			strict++
			if len(out) < maxResults {
				out = append(out, e.hit)
			}
		}
	}
	if len(kw) == 0 || len(out) == maxResults {
		return out
	}
	for _, e := range entries {
		if len(out) == maxResults {
			break
		}
		if e.hit.Score >= minScore || !e.hasK {
			continue // already in, or not a keyword match
		}
		if strict == 0 || !e.hasV {
			out = append(out, e.hit)
		}
	}
	return out
}
