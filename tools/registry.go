// Package tools holds the one registry of tool actions. Every front door (CLI,
// gateway method, node host, agent loop) runs an action through Invoke, so
// validation, policy and result encoding happen in exactly one place.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Where says which process runs an action.
type Where int

const (
	// Local actions run in the calling process (files, fetch, search).
	Local Where = iota
	// Gateway actions need state that outlives one process (cron, nodes, sessions).
	Gateway
	// Either actions run locally or relayed; the state lives elsewhere (browser).
	Either
)

func (w Where) String() string {
	switch w {
	case Gateway:
		return "gateway"
	case Either:
		return "either"
	}
	return "local"
}

// Handler runs one action. params has already passed the action's schema.
// The returned value is marshalled to JSON once by Invoke.
type Handler func(ctx context.Context, env *Env, params json.RawMessage) (any, error)

// Renderer prints a result for a human. It reads the result JSON, so it works
// the same for a local and a relayed result.
type Renderer func(w io.Writer, result gjson.Result) error

// Action is one tool action (or gateway-native method), declared once.
type Action struct {
	// Tool is the agent-facing tool name ("read", "browser", "web_fetch").
	// Empty for gateway-native methods that are not agent tools.
	Tool string
	// Verb is the action of a multi-action tool ("snapshot"); empty for
	// single-action tools.
	Verb string
	// Method is the gateway wire method for gateway-native actions
	// ("health", "config.get"). Agent tools are relayed through tools.invoke.
	Method string
	// Summary is one line for help and listings.
	Summary string
	// Description is the longer help text (optional).
	Description string
	// Examples are shell lines shown in help.
	Examples []string
	// Schema is the JSON Schema (an object schema) of the params.
	Schema string
	// Args are schema properties taken positionally on the command line, in order.
	// A trailing "..." on the last one collects the rest as an array.
	Args []string
	// PathParams name the params that are filesystem paths. Front doors
	// that know the caller's directory (the CLI) resolve relative ones
	// against it before invoking, so a relayed call means the same file.
	PathParams []string
	// Scope is the operator scope required to call this over the gateway
	// (and through tools.invoke); see RequiredScope for the defaults.
	Scope string
	// CallScopes, when set, names the scopes one call needs beyond Scope
	// because of what its params ask for (node.invoke of browser.proxy or
	// fs.listDir needs operator.admin). The handler enforces them; front
	// doors that relay (the CLI) ask the gateway for them, so a connection
	// is never granted more than the call in hand needs.
	CallScopes func(params json.RawMessage) []string
	// Roles may call this over the gateway; nil means operators only.
	// Node-only methods say []string{"node"}.
	Roles []string
	// Open actions answer every authenticated connection, whatever its role
	// and scopes (health).
	Open bool
	// Where says where the action runs.
	Where Where
	// Media marks actions whose results may refer to files (details.media
	// or a MEDIA:<path> text line); the CLI gives them --out FILE.
	Media bool
	// Run is the handler.
	Run Handler
	// Render prints the result for a human; nil prints indented JSON.
	Render Renderer
	// Hidden keeps a gateway-native method out of the CLI tree (it stays
	// callable with `openclaw gateway call`).
	Hidden bool
	// Command, when set, is the action's words on the command line instead
	// of the default (`tool verb`): canvas's a2ui_push says
	// ["nodes","canvas","a2ui","push"]. Groups along the way are shared
	// with other commands of the same words.
	Command []string
	// Flags renames schema properties' CLI flags (property → flag name),
	// for command lines the original spelt differently (--invoke-timeout
	// for timeoutMs).
	Flags map[string]string
	// FileParams name string params whose CLI flag names a file (- for
	// stdin) the CLI reads and sends as the value: the file is read where
	// the command runs, never by a gateway it relays to.
	FileParams []string
	// StdinParam names a string param the CLI reads raw from stdin when
	// neither a flag nor --params gives it and stdin is not a terminal
	// (`openclaw apply-patch < x.patch`).
	StdinParam string
	// Available, when set, says whether the tool exists at all for env's
	// caller (config switches, the calling model); an error explains why
	// not. It is the one rule behind both the policy's lists (tools
	// effective, tools.catalog, the agent tool list) and the refusal of a
	// call, so they cannot disagree. Set it on every action of the tool.
	Available func(env *Env) error
	// AvailableKey names what governs Available ("tools.exec.applyPatch"):
	// the step a removal is reported under.
	AvailableKey string

	// ReadOnly, Destructive, Idempotent and OpenWorld describe what the
	// action does to the world, for front doors that tell clients (MCP
	// tool annotations; `mcp serve --read-only` keeps ReadOnly actions
	// only). They are hints, never enforcement: policy decides what runs.
	// ReadOnly: it modifies nothing. Destructive: it may delete or
	// overwrite (false: it only adds). Idempotent: repeating the same call
	// has no further effect. OpenWorld: it reaches things outside this
	// machine's state (the web, chat platforms, other devices). An action
	// with none of them set has not been described: front doors assume
	// the worst of it (MCP's defaults: destructive, open world).
	ReadOnly, Destructive, Idempotent, OpenWorld bool

	once     sync.Once
	compiled *compiledSchema
	err      error
}

// Described reports whether the family set any of the action's hints.
func (a *Action) Described() bool {
	return a.ReadOnly || a.Destructive || a.Idempotent || a.OpenWorld
}

// ID is the registry key: the wire method for gateway-native actions,
// otherwise "tool" or "tool.verb".
func (a *Action) ID() string {
	if a.Method != "" && a.Tool == "" {
		return a.Method
	}
	if a.Verb == "" {
		return a.Tool
	}
	return a.Tool + "." + a.Verb
}

// Default is the one registry: filled by init() functions (tools.Register),
// read-only afterwards. Tests that register their own actions use their own
// Registry (NewRegistry), so -count=2 and parallel tests do not collide.
var Default = NewRegistry()

// Register adds an action to Default (see Registry.Register).
func Register(a *Action) { Default.Register(a) }

// Lookup returns the action with this id, or nil.
func Lookup(id string) *Action { return Default.Lookup(id) }

// All returns every action, sorted by id.
func All() []*Action { return Default.All() }

// ToolNames returns the distinct agent-facing tool names, sorted.
func ToolNames() []string { return Default.ToolNames() }

// ToolActions returns the actions of one agent tool, sorted by verb.
func ToolActions(tool string) []*Action { return Default.ToolActions(tool) }

// Methods returns every gateway method name served.
func Methods() []string { return Default.Methods() }

// ByMethod finds the action serving a gateway wire method.
func ByMethod(method string) *Action { return Default.ByMethod(method) }

// Suggest returns the registered ids closest to a misspelt one (at most 3).
func Suggest(id string) []string { return Default.Suggest(id) }

// Closest returns up to three candidates close to word, nearest first: a
// candidate starting with word, or within edit distance 2 as cobra and gh
// suggest (a swap of two neighbouring letters counts one), but only 1 for
// words of up to five letters, where two edits leave little of the word
// (`bogus` is not `logs`).
func Closest(word string, candidates []string) []string {
	type cand struct {
		s string
		d int
	}
	var cs []cand
	w := strings.ToLower(word)
	maxDist := 2
	if len([]rune(w)) <= 5 {
		maxDist = 1
	}
	for _, k := range candidates {
		lk := strings.ToLower(k)
		d := levenshtein(w, lk)
		if d <= maxDist || (w != "" && strings.HasPrefix(lk, w)) {
			cs = append(cs, cand{k, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].s < cs[j].s
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

// levenshtein is the optimal-string-alignment distance: insertions,
// deletions, substitutions and swaps of adjacent letters each cost one.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// String is for debugging.
func (a *Action) String() string { return fmt.Sprintf("%s (%s)", a.ID(), a.Where) }
