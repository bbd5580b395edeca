package policy

import "strings"

// pluginIndex knows which tools of a run belong to plugins. A nil index
// means "no plugins": expand is then the identity.
type pluginIndex struct {
	all      []string            // plugin tool names present in the run, run order
	byPlugin map[string][]string // lower-cased plugin id -> its tool names
	isTool   map[string]bool
}

// newPluginIndex keeps only plugin tools that are present in the run, as
// the original does (groups are built from the run's tool list).
func newPluginIndex(present []string, owners map[string]string) *pluginIndex {
	if len(owners) == 0 {
		return nil
	}
	byName := make(map[string]string, len(owners))
	for name, id := range owners {
		if n := Normalize(name); n != "" {
			byName[n] = strings.ToLower(strings.TrimSpace(id))
		}
	}
	idx := &pluginIndex{byPlugin: map[string][]string{}, isTool: map[string]bool{}}
	for _, n := range present {
		id, ok := byName[n]
		if !ok {
			continue
		}
		idx.all = append(idx.all, n)
		idx.isTool[n] = true
		if id != "" {
			idx.byPlugin[id] = append(idx.byPlugin[id], n)
		}
	}
	if len(idx.all) == 0 {
		return nil
	}
	return idx
}

// expand replaces `group:plugins` and plugin ids by the plugin tools they
// stand for. Entries it does not know are passed through normalised, so a
// `group:plugins` with no plugin loaded stays a literal that matches nothing.
func (idx *pluginIndex) expand(list []string) []string {
	if idx == nil || len(list) == 0 {
		return list
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		n := Normalize(e)
		switch {
		case n == "group:plugins":
			out = append(out, idx.all...)
		case len(idx.byPlugin[n]) > 0:
			out = append(out, idx.byPlugin[n]...)
		default:
			out = append(out, n)
		}
	}
	return dedupe(out)
}

// owns reports whether the normalised tool name is a plugin tool of the run.
func (idx *pluginIndex) owns(n string) bool { return idx != nil && idx.isTool[n] }

// isEntry reports whether a normalised allow entry names plugin tools:
// `group:plugins`, a plugin id, a plugin tool, or a glob hitting one.
func (idx *pluginIndex) isEntry(e string) bool {
	if e == "group:plugins" {
		return true
	}
	if idx == nil {
		return false
	}
	if idx.isTool[e] || len(idx.byPlugin[e]) > 0 {
		return true
	}
	if strings.Contains(e, "*") {
		parts := strings.Split(e, "*")
		for _, n := range idx.all {
			if globMatch(parts, n) {
				return true
			}
		}
	}
	return false
}
