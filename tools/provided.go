package tools

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Actions provided at run time. Most actions are declared once, in init()
// (Register); a service that learns its tools only while running (the
// saved MCP servers' tools, whose names and schemas come from the servers)
// provides them here instead. They then go through the one door like every
// other action: Invoke validates, applies the tool policy (a deny wins),
// loop detection, and they appear in the agent tool list, tools.catalog
// and `tools effective`. A provider replaces its whole set at once, and
// withdraws it by providing nothing.

// provided is what each owner provides in each registry (a side table, so
// the Registry type itself stays as it is).
var provided = struct {
	sync.Mutex
	by map[*Registry]*providedSet
}{by: map[*Registry]*providedSet{}}

type providedSet struct {
	owners map[string][]string // owner -> action ids it provides
	plugin map[string]string   // tool name -> plugin id (for the policy)
}

// permissiveSchema validates params a provided action's own schema cannot
// (a JSON Schema feature our validator lacks): the provider's server still
// validates them.
const permissiveSchema = `{"type":"object"}`

// Provide replaces the actions owner provides in Default (see
// Registry.Provide).
func Provide(owner, plugin string, acts []*Action) error { return Default.Provide(owner, plugin, acts) }

// Provide makes acts the actions owner provides at run time, removing the
// ones it provided before, in one step (a reader never sees a mix). plugin
// is the plugin id the tool policy knows them by (tools.deny:
// ["bundle-mcp"], profiles that allow it); each action needs Tool and Run.
// An action whose id another owner or a declared action already holds is
// left out, and the error names it; the others are provided. An action
// whose Schema our validator cannot compile is validated as any object,
// its Schema still shown to models as given.
func (r *Registry) Provide(owner, plugin string, acts []*Action) error {
	if owner == "" {
		return fmt.Errorf("tools.Provide: owner is required")
	}
	var clashes []string
	ready := make([]*Action, 0, len(acts))
	for _, a := range acts {
		if a == nil || a.Tool == "" || a.Run == nil || a.Method != "" {
			return fmt.Errorf("tools.Provide %s: a provided action needs Tool and Run, and no Method", owner)
		}
		if a.Schema == "" {
			a.Schema = permissiveSchema
		}
		if _, err := CompileSchema(a.ID(), a.Schema); err != nil {
			s, perr := CompileSchema(a.ID(), permissiveSchema)
			a.once.Do(func() { a.compiled, a.err = &compiledSchema{s}, perr })
		}
		ready = append(ready, a)
	}
	provided.Lock()
	defer provided.Unlock()
	set := provided.by[r]
	if set == nil {
		set = &providedSet{owners: map[string][]string{}, plugin: map[string]string{}}
		provided.by[r] = set
	}
	r.mu.Lock()
	for _, id := range set.owners[owner] {
		if a := r.actions[id]; a != nil {
			delete(set.plugin, a.Tool)
		}
		delete(r.actions, id)
	}
	delete(set.owners, owner)
	var ids []string
	for _, a := range ready {
		id := a.ID()
		if _, taken := r.actions[id]; taken {
			clashes = append(clashes, id)
			continue
		}
		r.actions[id] = a
		ids = append(ids, id)
		if plugin != "" {
			set.plugin[a.Tool] = plugin
		}
	}
	if len(ids) > 0 {
		set.owners[owner] = ids
	}
	r.mu.Unlock()
	if len(clashes) > 0 {
		sort.Strings(clashes)
		return fmt.Errorf("tools.Provide %s: already registered, left out: %s", owner, strings.Join(clashes, ", "))
	}
	return nil
}

// Provided returns the ids owner provides now, sorted.
func (r *Registry) Provided(owner string) []string {
	provided.Lock()
	defer provided.Unlock()
	set := provided.by[r]
	if set == nil {
		return nil
	}
	out := append([]string(nil), set.owners[owner]...)
	sort.Strings(out)
	return out
}

// PluginTools maps each provided tool to its plugin id, for the tool
// policy (nil when nothing is provided).
func (r *Registry) PluginTools() map[string]string {
	provided.Lock()
	defer provided.Unlock()
	set := provided.by[r]
	if set == nil || len(set.plugin) == 0 {
		return nil
	}
	out := make(map[string]string, len(set.plugin))
	for k, v := range set.plugin {
		out[k] = v
	}
	return out
}
