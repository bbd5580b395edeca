package memory

import (
	"math"
	"path"
	"strings"
	"time"
	"unicode"
)

// rerank is the optional post-processing of ranked hits (query.hybrid.mmr
// and query.hybrid.temporalDecay, both off by default as in the classic
// contract): dated daily notes lose weight with age, then MMR reorders
// the candidates so near-duplicate chunks do not crowd out the rest.
type rerank struct {
	decay    bool
	halfLife float64 // days
	mmr      bool
	lambda   float64
	now      time.Time
}

// apply decays the scores, sorts best first and, with MMR, reorders by
// marginal relevance. The caller cuts by minScore and maxResults after,
// keeping this order.
func (r rerank) apply(hits []Hit) []Hit {
	if r.decay {
		for i := range hits {
			if f := r.decayFactor(hits[i].Path); f < 1 {
				hits[i].Score = round(hits[i].Score * f)
			}
		}
	}
	hits = sortHits(hits)
	if r.mmr && len(hits) > 2 {
		hits = r.byMarginalRelevance(hits)
	}
	return hits
}

// decayFactor is 2^(-age/halfLife) for a daily note memory/YYYY-MM-DD*.md
// (age in days from its date to now, never negative); every other file,
// MEMORY.md included, is evergreen (1).
func (r rerank) decayFactor(p string) float64 {
	if r.halfLife <= 0 {
		return 1
	}
	day, ok := noteDate(p)
	if !ok {
		return 1
	}
	age := r.now.Sub(day).Hours() / 24
	if age <= 0 {
		return 1
	}
	return math.Exp2(-age / r.halfLife)
}

// noteDate reads the date of a daily note: a file under memory/ whose name
// starts with YYYY-MM-DD.
func noteDate(p string) (time.Time, bool) {
	if !strings.HasPrefix(p, "memory/") {
		return time.Time{}, false
	}
	name := path.Base(p)
	if len(name) < 10 {
		return time.Time{}, false
	}
	day, err := time.Parse("2006-01-02", name[:10])
	return day, err == nil
}

// byMarginalRelevance picks greedily: the best hit first, then each time
// the one maximising lambda×score − (1−lambda)×(its highest Jaccard
// similarity, over snippet words, to a hit already picked). Ties keep the
// score order.
func (r rerank) byMarginalRelevance(hits []Hit) []Hit {
	words := make([]map[string]struct{}, len(hits))
	for i := range hits {
		words[i] = wordSet(hits[i].Snippet)
	}
	picked := make([]int, 0, len(hits))
	used := make([]bool, len(hits))
	maxSim := make([]float64, len(hits)) // to the picked set so far
	for len(picked) < len(hits) {
		best, bestVal := -1, math.Inf(-1)
		for i := range hits {
			if used[i] {
				continue
			}
			v := r.lambda*hits[i].Score - (1-r.lambda)*maxSim[i]
			if v > bestVal {
				best, bestVal = i, v
			}
		}
		used[best] = true
		picked = append(picked, best)
		for i := range hits {
			if !used[i] {
				maxSim[i] = max(maxSim[i], jaccard(words[i], words[best]))
			}
		}
	}
	out := make([]Hit, len(hits))
	for k, i := range picked {
		out[k] = hits[i]
	}
	return out
}

// wordSet is the lower-cased words of s (letters, digits and _; each CJK
// character on its own, as they are not space separated).
func wordSet(s string) map[string]struct{} {
	set := map[string]struct{}{}
	start := -1
	flush := func(end int) {
		if start >= 0 {
			set[strings.ToLower(s[start:end])] = struct{}{}
			start = -1
		}
	}
	for i, c := range s {
		switch {
		case isCJK(c):
			flush(i)
			set[string(c)] = struct{}{}
		case unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_':
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return set
}

func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	inter := 0
	for w := range small {
		if _, ok := large[w]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
