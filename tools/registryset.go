package tools

import (
	"sort"
	"sync"
)

// Registry holds actions by id. Default is the process's registry; a test
// builds its own with NewRegistry.
type Registry struct {
	mu       sync.RWMutex
	actions  map[string]*Action
	byMethod map[string]*Action
	hooks    []*func(Call)
	// decodeHooks observe parses of params bytes (callparams.go).
	decodeHooks []*func(string)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{actions: map[string]*Action{}, byMethod: map[string]*Action{}}
}

// Register adds an action. It panics on a duplicate id or a missing handler,
// so a broken declaration fails at start-up and in every test.
func (r *Registry) Register(a *Action) {
	if a.Tool == "" && a.Method == "" {
		panic("tools.Register: action needs Tool or Method")
	}
	if a.Run == nil {
		panic("tools.Register: " + a.ID() + ": no handler")
	}
	if a.Schema == "" {
		a.Schema = `{"type":"object"}`
	}
	id := a.ID()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.actions[id]; dup {
		panic("tools.Register: duplicate action " + id)
	}
	if a.Method != "" {
		if _, dup := r.byMethod[a.Method]; dup {
			panic("tools.Register: duplicate method " + a.Method)
		}
		r.byMethod[a.Method] = a
	}
	r.actions[id] = a
}

// Lookup returns the action with this id, or nil.
func (r *Registry) Lookup(id string) *Action {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.actions[id]
}

// ByMethod finds the action serving a gateway wire method, or nil.
func (r *Registry) ByMethod(method string) *Action {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byMethod[method]
}

// All returns every action, sorted by id.
func (r *Registry) All() []*Action {
	r.mu.RLock()
	out := make([]*Action, 0, len(r.actions))
	for _, a := range r.actions {
		out = append(out, a)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// ToolNames returns the distinct agent-facing tool names, sorted.
func (r *Registry) ToolNames() []string {
	r.mu.RLock()
	seen := map[string]bool{}
	var out []string
	for _, a := range r.actions {
		if a.Tool != "" && !seen[a.Tool] {
			seen[a.Tool] = true
			out = append(out, a.Tool)
		}
	}
	r.mu.RUnlock()
	sort.Strings(out)
	return out
}

// ToolActions returns the actions of one agent tool, sorted by verb.
func (r *Registry) ToolActions(tool string) []*Action {
	r.mu.RLock()
	var out []*Action
	for _, a := range r.actions {
		if a.Tool == tool {
			out = append(out, a)
		}
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Verb < out[j].Verb })
	return out
}

// Methods returns every gateway method name served, sorted. Agent tools
// are reached through tools.invoke.
func (r *Registry) Methods() []string {
	r.mu.RLock()
	out := make([]string, 0, len(r.byMethod))
	for m := range r.byMethod {
		out = append(out, m)
	}
	r.mu.RUnlock()
	sort.Strings(out)
	return out
}

// Suggest returns the registered ids closest to a misspelt one (at most 3).
func (r *Registry) Suggest(id string) []string {
	r.mu.RLock()
	ids := make([]string, 0, len(r.actions))
	for k := range r.actions {
		ids = append(ids, k)
	}
	r.mu.RUnlock()
	return Closest(id, ids)
}

// OnInvoke registers f to observe every call entering Invoke (tests prove
// with it that each front door goes through the one door). The returned
// func removes it.
func (r *Registry) OnInvoke(f func(Call)) (remove func()) {
	p := &f
	r.mu.Lock()
	r.hooks = append(r.hooks, p)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, h := range r.hooks {
			if h == p {
				r.hooks = append(r.hooks[:i:i], r.hooks[i+1:]...)
				return
			}
		}
	}
}

func (r *Registry) observe(c Call) {
	r.mu.RLock()
	hooks := r.hooks
	r.mu.RUnlock()
	for _, h := range hooks {
		(*h)(c)
	}
}
