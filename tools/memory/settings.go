package memory

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
)

// settings is agents.defaults.memorySearch with the calling agent's
// agents.list[].memorySearch laid over it (objects merged key by key, as
// the original's per-agent override).
type settings struct {
	Enabled  *bool  `json:"enabled"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Fallback string `json:"fallback"`
	Remote   struct {
		BaseURL string            `json:"baseUrl"`
		APIKey  any               `json:"apiKey"`
		Headers map[string]string `json:"headers"`
	} `json:"remote"`
	Local struct {
		ModelPath string `json:"modelPath"`
	} `json:"local"`
	Store struct {
		Path string `json:"path"`
	} `json:"store"`
	Query struct {
		MaxResults *float64 `json:"maxResults"`
		MinScore   *float64 `json:"minScore"`
		Hybrid     struct {
			Enabled             *bool    `json:"enabled"`
			VectorWeight        *float64 `json:"vectorWeight"`
			TextWeight          *float64 `json:"textWeight"`
			CandidateMultiplier *float64 `json:"candidateMultiplier"`
			MMR                 struct {
				Enabled *bool    `json:"enabled"`
				Lambda  *float64 `json:"lambda"`
			} `json:"mmr"`
			TemporalDecay struct {
				Enabled      *bool    `json:"enabled"`
				HalfLifeDays *float64 `json:"halfLifeDays"`
			} `json:"temporalDecay"`
		} `json:"hybrid"`
	} `json:"query"`
	Cache struct {
		Enabled    *bool `json:"enabled"`
		MaxEntries *int  `json:"maxEntries"`
	} `json:"cache"`
}

// loadSettings reads the merged memorySearch object for agent. A value of
// the wrong type is a clear error naming the agent's settings.
func loadSettings(cfg *config.Config, agent string) (*settings, error) {
	merged := map[string]any{}
	if cfg != nil {
		if v, ok := cfg.Get("agents.defaults.memorySearch"); ok {
			if m, ok := v.(map[string]any); ok {
				merged = m
			}
		}
		if list, ok := cfg.Get("agents.list"); ok {
			items, _ := list.([]any)
			for _, it := range items {
				e, _ := it.(map[string]any)
				if id, _ := e["id"].(string); id != agent {
					continue
				}
				if over, ok := e["memorySearch"].(map[string]any); ok {
					merged = mergeObjects(merged, over)
				}
			}
		}
	}
	var s settings
	b, err := json.Marshal(merged)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		return nil, fmt.Errorf("memorySearch settings for agent %s: %w", agent, err)
	}
	return &s, nil
}

// mergeObjects returns base with over laid on top (nested objects merged,
// everything else replaced); neither input is modified.
func mergeObjects(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bo, ok := out[k].(map[string]any); ok {
			if oo, ok := v.(map[string]any); ok {
				out[k] = mergeObjects(bo, oo)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func (s *settings) enabled() bool { return s.Enabled == nil || *s.Enabled }

func (s *settings) embeddingConfig() providers.EmbeddingConfig {
	return providers.EmbeddingConfig{
		Provider: s.Provider, Model: s.Model,
		BaseURL: s.Remote.BaseURL, APIKey: s.Remote.APIKey, Headers: s.Remote.Headers,
		LocalModelPath: s.Local.ModelPath,
	}
}

// hybrid is query.hybrid resolved: weights normalized to sum 1 (0.7/0.3 by
// default) and the candidate multiplier clamped to 1..20 (default 4).
type hybrid struct {
	enabled                  bool
	vectorWeight, textWeight float64
	multiplier               float64
}

func (s *settings) hybrid() hybrid {
	h := hybrid{enabled: true, vectorWeight: 0.7, textWeight: 0.3, multiplier: candidateMultiplier}
	q := s.Query.Hybrid
	if q.Enabled != nil {
		h.enabled = *q.Enabled
	}
	if q.VectorWeight != nil && *q.VectorWeight >= 0 && !math.IsInf(*q.VectorWeight, 0) {
		h.vectorWeight = *q.VectorWeight
	}
	if q.TextWeight != nil && *q.TextWeight >= 0 && !math.IsInf(*q.TextWeight, 0) {
		h.textWeight = *q.TextWeight
	}
	if sum := h.vectorWeight + h.textWeight; sum > 0 {
		h.vectorWeight, h.textWeight = h.vectorWeight/sum, h.textWeight/sum
	} else {
		h.vectorWeight, h.textWeight = 0.7, 0.3
	}
	if q.CandidateMultiplier != nil && !math.IsNaN(*q.CandidateMultiplier) {
		h.multiplier = min(20, max(1, *q.CandidateMultiplier))
	}
	return h
}

// rerank is query.hybrid.mmr and query.hybrid.temporalDecay resolved (off
// by default; lambda 0.7 clamped to 0..1, half-life 30 days).
func (s *settings) rerank(now time.Time) rerank {
	q := s.Query.Hybrid
	r := rerank{lambda: 0.7, halfLife: 30, now: now}
	if q.MMR.Enabled != nil {
		r.mmr = *q.MMR.Enabled
	}
	if l := q.MMR.Lambda; l != nil && !math.IsNaN(*l) {
		r.lambda = min(1, max(0, *l))
	}
	if q.TemporalDecay.Enabled != nil {
		r.decay = *q.TemporalDecay.Enabled
	}
	if d := q.TemporalDecay.HalfLifeDays; d != nil && *d > 0 && !math.IsInf(*d, 0) {
		r.halfLife = *d
	}
	return r
}

// candidates is how many hits each leg brings to the merge:
// min(200, max(1, floor(maxResults × multiplier))).
func (h hybrid) candidates(maxResults int) int {
	return min(200, max(1, int(math.Floor(float64(maxResults)*h.multiplier))))
}
