package policy

import (
	"container/list"
	"fmt"
	"strings"
	"sync"
)

// Warning texts (§5.7). The Classic prefix is added when the list was
// dropped so the operator knows core tools stayed available.
const (
	ignoredPrefix   = "Ignoring allowlist so core tools remain available. "
	detailGated     = "These entries are shipped core tools but unavailable in the current runtime/provider/model/config."
	detailOther     = "These entries won't match any tool unless the plugin is enabled."
	detailMixed     = "Some entries are shipped core tools but unavailable in the current runtime/provider/model/config; other entries won't match any tool unless the plugin is enabled."
	alsoAllowAdvice = "Use tools.alsoAllow for additive plugin tool enablement."
)

// unknownWarning reports allow entries that match no tool of the run. A
// shipped core tool (or Classic group) is "unavailable", anything else is
// presumably a plugin that is not loaded.
func unknownWarning(label string, entries []string, stripped bool) string {
	gated, other := false, false
	for _, e := range entries {
		if _, isGroup := Groups[e]; isGroup || coreSet[e] {
			gated = true
		} else {
			other = true
		}
	}
	detail := detailOther
	switch {
	case gated && other:
		detail = detailMixed
	case gated:
		detail = detailGated
	}
	prefix := ""
	if stripped {
		prefix = ignoredPrefix
	}
	return "tools: " + label + " allowlist contains unknown entries (" + strings.Join(entries, ", ") + "). " + prefix + detail
}

// pluginOnlyWarning is emitted when a Classic allow-list naming only
// plugin tools is dropped (upstream dropped it silently; the spec asks for a
// warning so the operator learns to use alsoAllow).
func pluginOnlyWarning(label string, entries []string) string {
	return "tools: " + label + " allowlist contains only plugin entries (" + strings.Join(entries, ", ") + "). " + ignoredPrefix + alsoAllowAdvice
}

// WarningCacheSize bounds Warner's memory (§5.7).
const WarningCacheSize = 256

// Warner deduplicates warnings across runs so a misconfiguration is logged
// once, not on every agent turn. It keeps the most recently seen
// WarningCacheSize messages (LRU); an evicted message warns again. The zero
// value is ready to use and it is safe for concurrent use.
type Warner struct {
	mu    sync.Mutex
	order *list.List // front = most recently seen
	index map[string]*list.Element
}

// Filter returns the messages not seen recently, in order, and remembers
// them. Duplicates within msgs are reported once.
func (w *Warner) Filter(msgs []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.index == nil {
		w.order = list.New()
		w.index = make(map[string]*list.Element)
	}
	var out []string
	for _, m := range msgs {
		if e, ok := w.index[m]; ok {
			w.order.MoveToFront(e)
			continue
		}
		if w.order.Len() >= WarningCacheSize {
			oldest := w.order.Back()
			w.order.Remove(oldest)
			delete(w.index, oldest.Value.(string))
		}
		w.index[m] = w.order.PushFront(m)
		out = append(out, m)
	}
	return out
}

// Audit renders Removed as log lines, one per step in pipeline order:
// "tool policy removed <n> tool(s) via <step>: <names>". Control
// characters are escaped so config-supplied names cannot forge log lines.
func (r Result) Audit() []string {
	var steps []string
	byStep := map[string][]string{}
	for _, rm := range r.Removed {
		if _, ok := byStep[rm.Step]; !ok {
			steps = append(steps, rm.Step)
		}
		byStep[rm.Step] = append(byStep[rm.Step], escapeControl(rm.Tool))
	}
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		names := byStep[s]
		out = append(out, fmt.Sprintf("tool policy removed %d tool(s) via %s: %s", len(names), escapeControl(s), strings.Join(names, ", ")))
	}
	return out
}

func escapeControl(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
