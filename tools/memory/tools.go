// Package memory is the agent's searchable memory: MEMORY.md and
// memory/**/*.md of the agent workspace, indexed into a per-agent SQLite
// FTS5 file under the state dir (<state>/memory/<agent>.sqlite, as the
// original). Every search first re-reads the notes whose size or mtime
// changed, so an edited note is found at once. Ranking is BM25 only:
// embeddings are not implemented, and their absence is never an error.
//
// The package is imported only through tools/all; the SQLite driver is
// linked into the binary already (store), and the index is opened only by
// the memory actions, never on another command's start-up path.
package memory

import (
	"context"
	_ "embed"
	"os"
	"path/filepath"

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
		Tool:    "memory_search",
		Summary: "Search MEMORY.md and memory/*.md of the agent workspace (BM25)",
		Description: "Before answering anything about prior work, decisions, dates, people, " +
			"preferences, or todos: run memory_search; then use memory_get to pull only the " +
			"needed lines. Results name the file and line range. Keyword ranking (BM25) only: " +
			"embeddings are not used.",
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
		Tool:    "memory_get",
		Summary: "Read lines of a memory note (MEMORY.md or memory/*.md only)",
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
		Tool:    "memory_index",
		Summary: "Bring the memory index up to date (searches do this by themselves)",
		Description: "Re-reads the notes whose size or mtime changed and drops deleted ones; " +
			"--force rebuilds the index from scratch.",
		Examples: []string{"openclaw memory index", "openclaw memory index --force"},
		Schema:   indexSchema,
		Scope:    "operator.write",
		Where:    tools.Local,
		Run:      tools.Typed(runIndex),
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

// openIndex opens the calling agent's index.
func openIndex(ctx context.Context, env *tools.Env) (*Index, error) {
	if !env.Config.Bool("agents.defaults.memorySearch.enabled", true) {
		return nil, tools.Errorf(tools.CodeDenied,
			"memory search is disabled (agents.defaults.memorySearch.enabled is false)")
	}
	agent := env.AgentID()
	if !validAgentID(agent) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "memory: invalid agent id %q", agent)
	}
	if env.StateDir == "" {
		return nil, tools.Errorf(tools.CodeFailed, "memory: no state dir")
	}
	path := dbPath(env.StateDir, tools.ExpandHome(env.Config.String("agents.defaults.memorySearch.store.path", "")), agent)
	ix, err := Open(ctx, path, workspace(env))
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%w", err)
	}
	return ix, nil
}

type searchParams struct {
	Query      string   `json:"query"`
	MaxResults *float64 `json:"maxResults"`
	MinScore   *float64 `json:"minScore"`
}

// embeddingNote says, in the result, that ranking is keyword-only and why
// (the later original's debug.embeddingBootstrap).
type embeddingNote struct {
	OK         bool   `json:"ok"`
	Provider   string `json:"provider"`
	Reason     string `json:"reason"`
	DegradedTo string `json:"degradedTo"`
}

type searchResult struct {
	Results  []Hit  `json:"results"`
	Provider string `json:"provider"`
	Mode     string `json:"mode"`
	Debug    struct {
		EmbeddingBootstrap embeddingNote `json:"embeddingBootstrap"`
	} `json:"debug"`
}

func runSearch(ctx context.Context, env *tools.Env, p searchParams) (any, error) {
	maxResults := env.Config.Int("agents.defaults.memorySearch.query.maxResults", defaultMaxResults)
	if p.MaxResults != nil {
		maxResults = int(*p.MaxResults)
	}
	// The original's 0.35 cut assumes hybrid scores; BM25 alone scores by
	// corpus size (a word in half of three notes scores ~0), so without
	// embeddings nothing is cut unless asked.
	minScore := 0.0
	if v, ok := env.Config.Get("agents.defaults.memorySearch.query.minScore"); ok {
		if f, ok := v.(float64); ok {
			minScore = f
		}
	}
	if p.MinScore != nil {
		minScore = *p.MinScore
	}
	minScore = min(1, max(0, minScore))
	ix, err := openIndex(ctx, env)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "memory search: %w", err)
	}
	hits, err := ix.Search(ctx, p.Query, maxResults, minScore)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "%w", err)
	}
	res := searchResult{Results: hits, Provider: "none", Mode: "keyword-only"}
	reason := "embeddings are not implemented in this build; ranking is BM25 over SQLite FTS5"
	if prov := env.Config.String("agents.defaults.memorySearch.provider", "auto"); prov != "auto" && prov != "" {
		reason = "memorySearch.provider " + prov + " is ignored: " + reason
	}
	res.Debug.EmbeddingBootstrap = embeddingNote{Provider: "none", Reason: reason, DegradedTo: "keyword-only"}
	return tools.JSONResult(res)
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
	if !env.Config.Bool("agents.defaults.memorySearch.enabled", true) {
		return nil, tools.Errorf(tools.CodeDenied,
			"memory search is disabled (agents.defaults.memorySearch.enabled is false)")
	}
	abs, rel, err := resolveNote(workspace(env), p.Path)
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
	text, err := readLines(ctx, abs, start, count)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, refusal(p.Path, errPathRequired)
		}
		return nil, refusal(p.Path, err)
	}
	return tools.JSONResult(getResult{Path: rel, Text: text})
}

// refusal is a memory_get failure: the original's message, and its
// {path, text:"", disabled:true, error} object as the details.
func refusal(path string, err error) error {
	code := tools.CodeFailed
	if err == errPathRequired {
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
	Workspace string `json:"workspace"`
}

func runIndex(ctx context.Context, env *tools.Env, p indexParams) (any, error) {
	ix, err := openIndex(ctx, env)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if p.Force {
		if err := ix.reset(ctx); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "memory index: %w", err)
		}
	}
	st, err := ix.Sync(ctx)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "memory index: %w", err)
	}
	return tools.JSONResult(indexResult{Path: ix.path, SyncStats: st, Workspace: ix.root})
}
