// Package memory is the agent's searchable memory: MEMORY.md and
// memory/**/*.md of the agent workspace, indexed into a per-agent SQLite
// FTS5 file under the state dir (<state>/memory/<agent>.sqlite, as the
// original). Every search first checks the notes for changes and re-reads
// the changed ones, so an edited note is found at once: a one-shot process
// stats every note (digested into one signature compared with the index's;
// see Sync), the gateway's memory service keeps the index open and an
// inotify watcher on the notes, and scans only after a change (service.go).
// Keyword ranking reads the posting lists and computes FTS5's bm25() ranks
// itself, keeping the best few (rank.go).
// Ranking is hybrid (cosine over embeddings merged with BM25, §9.3 of the
// spec) when an embeddings provider is configured or has a key, and BM25
// alone otherwise: the absence or failure of embeddings is never an error,
// and the result says which mode ran.
//
// The package is imported only through tools/all; the SQLite driver is
// linked into the binary already (store), and the index is opened only by
// the memory actions, never on another command's start-up path.
package memory

import (
	"context"
	_ "embed"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/tools"
)

var (
	//go:embed schema/memory_search.json
	searchSchema string
	//go:embed schema/memory_get.json
	getSchema string
	//go:embed schema/memory_index.json
	indexSchema string
)

func init() {
	tools.Register(&tools.Action{
		Tool:       "memory_search",
		ReadOnly:   true,
		Idempotent: true,
		Summary:    "Search MEMORY.md and memory/*.md of the agent workspace (hybrid or BM25)",
		Description: "Before answering anything about prior work, decisions, dates, people, " +
			"preferences, or todos: run memory_search; then use memory_get to pull only the " +
			"needed lines. Results name the file and line range. Ranking is hybrid (embeddings " +
			"and BM25) when an embeddings provider is configured, keyword-only (BM25) otherwise; " +
			"`mode` says which ran.",
		Examples: []string{
			"openclaw memory search 'budget meeting'",
			"openclaw memory search 预算 --max-results 3",
		},
		Schema: searchSchema,
		Args:   []string{"query"},
		Scope:  "operator.read",
		Where:  tools.Local,
		Run:    tools.Typed(runSearch),
		Render: renderSearch,
	})
	tools.Register(&tools.Action{
		Tool:       "memory_get",
		ReadOnly:   true,
		Idempotent: true,
		Summary:    "Read lines of a memory note (MEMORY.md or memory/*.md only)",
		Description: "Returns exactly the requested lines of one memory file; paths outside " +
			"MEMORY.md and memory/ of the workspace, and symlinks, are refused.",
		Examples: []string{
			"openclaw memory get --path memory/2026-03-01.md --from 12 --lines 20",
		},
		Schema: getSchema,
		Scope:  "operator.read",
		Where:  tools.Local,
		Run:    tools.Typed(runGet),
		Render: renderGet,
	})
	tools.Register(&tools.Action{
		Tool:       "memory_index",
		Idempotent: true,
		Summary:    "Bring the memory index up to date (searches do this by themselves)",
		Description: "Re-reads the notes whose size, mtime, ctime or inode changed and drops deleted ones, " +
			"and embeds the chunks that have no vector yet when an embeddings provider is " +
			"configured; --force rebuilds the index from scratch (cached vectors are kept).",
		Examples: []string{"openclaw memory index", "openclaw memory index --force"},
		Schema:   indexSchema,
		Scope:    "operator.write",
		Where:    tools.Local,
		Run:      tools.Typed(runIndex),
		Render:   renderIndex,
	})
}

// workspace is the agent workspace memory lives in: the agent's configured
// workspace, agents.defaults.workspace, or <state>/workspace. It is not the
// CLI's working directory (which the CLI passes for relative file paths):
// `openclaw memory search` means the agent's memory wherever it is run.
func workspace(env *tools.Env) string {
	e := *env
	e.Workspace = ""
	root := e.WorkspaceDir()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root
}

// validAgentID accepts ids safe as a file name: [A-Za-z0-9][A-Za-z0-9_.-]{0,63}.
// (A loop, not a regexp: package init runs on every command's start-up.)
func validAgentID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			i > 0 && (r == '_' || r == '.' || r == '-')
		if !ok {
			return false
		}
	}
	return true
}

// agentIndex is the calling agent's index for one call: the gateway
// memory service's open one (synced through its watcher), or one opened
// for the call. release hands it back.
type agentIndex struct {
	*Index
	sync    func(context.Context) (SyncStats, error)
	release func()
}

// openIndex opens the calling agent's index with its merged settings.
func openIndex(ctx context.Context, env *tools.Env) (*agentIndex, *settings, error) {
	agent := env.AgentID()
	if !validAgentID(agent) {
		return nil, nil, tools.Errorf(tools.CodeInvalidParams, "memory: invalid agent id %q", agent)
	}
	st, err := loadSettings(env.Config, agent)
	if err != nil {
		return nil, nil, tools.Errorf(tools.CodeInvalidParams, "%w", err)
	}
	if !st.enabled() {
		return nil, nil, tools.Errorf(tools.CodeDenied,
			"memory search is disabled (agents.defaults.memorySearch.enabled is false)")
	}
	if env.StateDir == "" {
		return nil, nil, tools.Errorf(tools.CodeFailed, "memory: no state dir")
	}
	path := dbPath(env.StateDir, tools.ExpandHome(st.Store.Path), agent)
	ix, sync, release, err := indexFor(ctx, env, path, workspace(env))
	if err != nil {
		return nil, nil, tools.Errorf(tools.CodeFailed, "%w", err)
	}
	return &agentIndex{Index: ix, sync: sync, release: release}, st, nil
}

type searchParams struct {
	Query      string   `json:"query"`
	MaxResults *float64 `json:"maxResults"`
	MinScore   *float64 `json:"minScore"`
}

// embeddingNote says how the embeddings provider came up (the later
// original's debug.embeddingBootstrap): ok, or why ranking degraded to
// keywords.
type embeddingNote struct {
	OK         bool   `json:"ok"`
	Provider   string `json:"provider"`
	Reason     string `json:"reason,omitempty"`
	DegradedTo string `json:"degradedTo,omitempty"`
}

// fallbackNote is present only when a configured provider failed and the
// search fell back to keywords.
type fallbackNote struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

type searchResult struct {
	Results  []Hit         `json:"results"`
	Provider string        `json:"provider"`
	Model    string        `json:"model,omitempty"`
	Mode     string        `json:"mode"` // hybrid, vector-only or keyword-only
	Fallback *fallbackNote `json:"fallback,omitempty"`
	Warning  string        `json:"warning,omitempty"`
	Debug    struct {
		EmbeddingBootstrap embeddingNote `json:"embeddingBootstrap"`
		Embedded           int           `json:"embedded"` // chunks embedded by this call
	} `json:"debug"`
}

func runSearch(ctx context.Context, env *tools.Env, p searchParams) (any, error) {
	ix, st, err := openIndex(ctx, env)
	if err != nil {
		return nil, err
	}
	defer ix.release()
	maxResults := defaultMaxResults
	if st.Query.MaxResults != nil {
		maxResults = int(*st.Query.MaxResults)
	}
	if p.MaxResults != nil {
		maxResults = int(*p.MaxResults)
	}
	ss, err := ix.sync(ctx)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "memory search: %w", err)
	}
	res := searchResult{Results: []Hit{}, Provider: "none", Mode: "keyword-only"}
	emb, reason, cfgErr := resolveEmbedder(env, st)
	switch {
	case cfgErr != nil:
		res.Warning = cfgErr.Error() + "; using keyword-only results"
		reason = cfgErr.Error()
	case emb != nil:
		res.Provider, res.Model = emb.Provider(), emb.Model()
	}
	var qvec []float32
	if emb != nil && strings.TrimSpace(p.Query) != "" {
		q := strings.TrimSpace(p.Query)
		changed := ss.Indexed+ss.Removed > 0
		var embedded int
		qvec, embedded, err = embedQuery(ctx, ix.Index, emb, q, changed, st.keepOrphans())
		res.Debug.Embedded = embedded
		if err != nil {
			if ctx.Err() != nil {
				return nil, tools.Errorf(tools.CodeInterrupted, "memory search: %w", ctx.Err())
			}
			reason = err.Error()
			from := emb.Provider()
			// memorySearch.fallback names a provider to try next (with its
			// own defaults and keys); else keywords answer. Either way the
			// result says what happened.
			if fb, ok := fallbackEmbedder(env, st, from); ok {
				qvec, embedded, err = embedQuery(ctx, ix.Index, fb, q, changed, st.keepOrphans())
				res.Debug.Embedded += embedded
				if err == nil {
					emb = fb
					res.Provider, res.Model = fb.Provider(), fb.Model()
					res.Fallback = &fallbackNote{From: from, To: fb.Provider(), Reason: reason}
					res.Warning = "embeddings " + from + " unavailable (" + reason + "); using " + fb.Provider()
				} else if ctx.Err() != nil {
					return nil, tools.Errorf(tools.CodeInterrupted, "memory search: %w", ctx.Err())
				} else {
					reason += "; fallback " + fb.Provider() + ": " + err.Error()
				}
			}
			if err != nil {
				qvec = nil
				res.Fallback = &fallbackNote{From: from, To: "keyword-only", Reason: reason}
				res.Warning = "embeddings unavailable (" + reason + "); using keyword-only results"
			}
		}
	}
	if qvec != nil {
		h := st.hybrid()
		res.Mode = "hybrid"
		if !h.enabled {
			res.Mode = "vector-only"
		}
		res.Results, err = ix.HybridSearch(ctx, p.Query, qvec, emb.Key(), maxResults, minScore(p, st, 0.35), h, st.rerank(time.Now()))
		res.Debug.EmbeddingBootstrap = embeddingNote{OK: true, Provider: emb.Provider()}
	} else {
		// The original's 0.35 cut assumes hybrid scores; BM25 alone scores
		// by corpus size (a word in half of three notes scores ~0), so
		// keyword-only cuts nothing unless asked.
		res.Results, err = ix.Search(ctx, p.Query, maxResults, minScore(p, st, 0), st.rerank(time.Now()))
		res.Debug.EmbeddingBootstrap = embeddingNote{Provider: res.Provider, Reason: reason, DegradedTo: "keyword-only"}
	}
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%w", err)
	}
	return tools.JSONResult(res)
}

// minScore is the call's minScore, else query.minScore, else def; 0..1.
func minScore(p searchParams, st *settings, def float64) float64 {
	m := def
	if st.Query.MinScore != nil {
		m = *st.Query.MinScore
	}
	if p.MinScore != nil {
		m = *p.MinScore
	}
	return min(1, max(0, m))
}

// resolveEmbedder is the agent's embeddings client, or nil and why not.
// cfgErr is a configuration mistake (an unknown provider): reported as a
// warning, never a failure of the search.
func resolveEmbedder(env *tools.Env, st *settings) (emb *providers.Embedder, reason string, cfgErr error) {
	s, reason, err := providers.ResolveEmbeddings(env.Config, st.embeddingConfig())
	if err != nil || s == nil {
		return nil, reason, err
	}
	emb, err = providers.NewEmbedder(*s)
	if err != nil {
		return nil, "", err
	}
	return emb, "", nil
}

// embedQuery embeds the chunks emb has no vector for yet, then the query.
func embedQuery(ctx context.Context, ix *Index, emb *providers.Embedder, q string, changed bool, keep int) ([]float32, int, error) {
	es, err := ix.embedMissing(ctx, emb, changed, keep)
	if err != nil {
		return nil, es.Embedded, err
	}
	v, err := emb.EmbedQuery(ctx, q)
	return v, es.Embedded, err
}

// fallbackEmbedder is memorySearch.fallback resolved with that provider's
// own defaults and keys (remote.* belong to the primary), if it names a
// usable provider other than the one that failed.
func fallbackEmbedder(env *tools.Env, st *settings, failed string) (*providers.Embedder, bool) {
	fb := strings.ToLower(strings.TrimSpace(st.Fallback))
	if fb == "" || fb == "none" || fb == failed {
		return nil, false
	}
	s, _, err := providers.ResolveEmbeddings(env.Config, providers.EmbeddingConfig{Provider: fb})
	if err != nil || s == nil {
		return nil, false
	}
	emb, err := providers.NewEmbedder(*s)
	return emb, err == nil
}

// keepOrphans is how many vectors of vanished chunks the cache keeps.
func (s *settings) keepOrphans() int {
	if s.Cache.Enabled != nil && !*s.Cache.Enabled {
		return 0
	}
	if s.Cache.MaxEntries != nil && *s.Cache.MaxEntries >= 0 {
		return *s.Cache.MaxEntries
	}
	return defaultOrphanVectors
}

type getParams struct {
	Path  string `json:"path"`
	From  *int   `json:"from"`
	Lines *int   `json:"lines"`
}

type getResult struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

func runGet(ctx context.Context, env *tools.Env, p getParams) (any, error) {
	st, err := loadSettings(env.Config, env.AgentID())
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "%w", err)
	}
	if !st.enabled() {
		return nil, tools.Errorf(tools.CodeDenied,
			"memory search is disabled (agents.defaults.memorySearch.enabled is false)")
	}
	root := workspace(env)
	_, rel, err := resolveNote(root, p.Path)
	if err != nil {
		return nil, refusal(p.Path, err)
	}
	start, count := 1, -1
	if p.From != nil {
		start = max(1, *p.From)
	}
	if p.Lines != nil {
		count = max(1, *p.Lines)
	}
	// Opened as the index reads notes: no symlink at any level, and not a
	// file with other hard links (one may be outside the workspace).
	f, err := openNote(root, rel)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, errNotNote) {
			return nil, refusal(p.Path, errNotMemoryFile)
		}
		return nil, refusal(p.Path, err)
	}
	defer f.Close()
	text, err := readLines(ctx, f, start, count)
	if err != nil {
		return nil, refusal(p.Path, err)
	}
	return tools.JSONResult(getResult{Path: rel, Text: text})
}

// refusal is a memory_get failure: its message, and the original's
// {path, text:"", disabled:true, error} object as the details.
func refusal(path string, err error) error {
	code := tools.CodeFailed
	if err == errPathRequired || err == errNotMemoryFile {
		code = tools.CodeInvalidParams
	}
	return tools.Errorf(code, "%s", err.Error()).WithDetails(map[string]any{
		"path": path, "text": "", "disabled": true, "error": err.Error(),
	})
}

type indexParams struct {
	Force bool `json:"force"`
}

type indexResult struct {
	Path string `json:"path"`
	SyncStats
	Workspace  string      `json:"workspace"`
	Provider   string      `json:"provider"`
	Model      string      `json:"model,omitempty"`
	Embeddings *EmbedStats `json:"embeddings,omitempty"`
	Warning    string      `json:"warning,omitempty"`
}

func runIndex(ctx context.Context, env *tools.Env, p indexParams) (any, error) {
	ix, st, err := openIndex(ctx, env)
	if err != nil {
		return nil, err
	}
	defer ix.release()
	if p.Force {
		if err := ix.reset(ctx); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "memory index: %w", err)
		}
	}
	ss, err := ix.sync(ctx)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "memory index: %w", err)
	}
	res := indexResult{Path: ix.path, SyncStats: ss, Workspace: ix.root, Provider: "none"}
	emb, reason, cfgErr := resolveEmbedder(env, st)
	switch {
	case cfgErr != nil:
		res.Warning = cfgErr.Error() + "; indexed for keyword search only"
	case emb == nil:
		res.Warning = reason + "; indexed for keyword search only"
	default:
		res.Provider, res.Model = emb.Provider(), emb.Model()
		es, err := ix.embedMissing(ctx, emb, true, st.keepOrphans())
		res.Embeddings = &es
		if err != nil {
			if ctx.Err() != nil {
				return nil, tools.Errorf(tools.CodeInterrupted, "memory index: %w", ctx.Err())
			}
			res.Warning = "embeddings: " + err.Error() + "; the chunks not embedded are found by keyword only"
		}
	}
	return tools.JSONResult(res)
}
