package browser

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// node is one rendered element of a snapshot, after transparent wrappers
// (ignored nodes, none/presentation, unnamed single-child generics) are
// folded away. Text leaves have Role "text".
type node struct {
	Role        string
	Name        string
	States      []string // "checked", "level=1", ...
	Ref         string
	Cursor      bool   // links: [cursor=pointer]
	URL         string // links: the href as written
	Placeholder string
	Value       string // textbox value, rendered inline
	Children    []*node
	back        proto.DOMBackendNodeID   // the DOM node (the element the ref binds to)
	doc         *frameDoc                // the document it belongs to
	bindable    bool                     // gets a ref (elements, not options or text)
	Active      bool                     // holds focus: [active]
	hasURL      bool                     // a link with an href (even empty): /url:
	contrib     []proto.DOMBackendNodeID // elements its name came from (aria-labelledby, caption, legend)
	fromContent bool                     // its name is its content's text
	repeated    bool                     // dropped for repeating its parent's name
}

// hasProps says whether the node prints /url: or /placeholder: lines.
func (n *node) hasProps() bool { return n.hasURL || n.URL != "" || n.Placeholder != "" }

// interactiveRoles always get a ref and are what --interactive keeps.
var interactiveRoles = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"button": true, "checkbox": true, "combobox": true, "link": true, "listbox": true, "menuitem": true,
		"menuitemcheckbox": true, "menuitemradio": true, "option": true, "radio": true, "searchbox": true,
		"slider": true, "spinbutton": true, "switch": true, "tab": true, "textbox": true, "treeitem": true,
	}
}) // built on first use, not in every process's init

// refInfo is one entry of the result's refs map.
type refInfo struct {
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
}

// stats are the snapshot's figures, from the visible lines only.
type stats struct {
	Lines       int `json:"lines"`
	Chars       int `json:"chars"`
	Refs        int `json:"refs"`
	Interactive int `json:"interactive"`
}

// quote JSON-escapes a name so page text cannot forge a line.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// oneLine collapses whitespace (CR/LF included) in inline text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// render writes the ai-format tree: two spaces per level, a trailing ":"
// when children follow, ": text" when the only content is text.
func render(nodes []*node, interactive bool) string {
	var b strings.Builder
	b.Grow(64 * len(nodes))
	if interactive {
		var walk func([]*node)
		walk = func(ns []*node) {
			for _, n := range ns {
				if n.Ref != "" && interactiveRoles()[n.Role] {
					writeHead(&b, n)
					b.WriteByte('\n')
				}
				walk(n.Children)
			}
		}
		walk(nodes)
	} else {
		for _, n := range nodes {
			renderNode(&b, n, 0)
		}
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if out == "" {
		if interactive {
			return "(no interactive elements)"
		}
		return "(empty)"
	}
	return out
}

func indent(b *strings.Builder, depth int) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
}

// writeHead writes "- key", the key quoted as a YAML scalar when it
// would not read back as plain text (the original's rule).
func writeHead(b *strings.Builder, n *node) {
	var k strings.Builder
	k.WriteString(n.Role)
	if n.Name != "" && len(n.Name) <= 900 {
		k.WriteByte(' ')
		k.WriteString(quote(n.Name))
	}
	for _, s := range n.States {
		k.WriteString(" [")
		k.WriteString(s)
		k.WriteByte(']')
	}
	if n.Ref != "" {
		k.WriteString(" [ref=")
		k.WriteString(n.Ref)
		k.WriteByte(']')
		if n.Cursor {
			k.WriteString(" [cursor=pointer]")
		}
	}
	b.WriteString("- ")
	key := k.String()
	if yamlNeedsQuotes(key) {
		key = "'" + strings.ReplaceAll(key, "'", "''") + "'"
	}
	b.WriteString(key)
}

func renderNode(b *strings.Builder, n *node, depth int) {
	indent(b, depth)
	if n.Role == "text" {
		b.WriteString("- text: ")
		b.WriteString(yamlValue(oneLine(n.Name)))
		b.WriteByte('\n')
		return
	}
	writeHead(b, n)
	kids := n.Children
	if n.Value != "" {
		kids = append([]*node{{Role: "text", Name: n.Value}}, kids...)
	}
	props := n.hasProps()
	// Only one text: inline it after the colon.
	if !props && len(kids) == 1 && kids[0].Role == "text" {
		b.WriteString(": ")
		b.WriteString(yamlValue(oneLine(kids[0].Name)))
		b.WriteByte('\n')
		return
	}
	if !props && len(kids) == 0 {
		b.WriteByte('\n')
		return
	}
	b.WriteString(":\n")
	if n.hasURL || n.URL != "" {
		indent(b, depth+1)
		b.WriteString("- /url: ")
		b.WriteString(yamlValue(oneLine(n.URL)))
		b.WriteByte('\n')
	}
	if n.Placeholder != "" {
		indent(b, depth+1)
		b.WriteString("- /placeholder: ")
		b.WriteString(yamlValue(oneLine(n.Placeholder)))
		b.WriteByte('\n')
	}
	for _, c := range kids {
		renderNode(b, c, depth+1)
	}
}

func allText(ns []*node) bool {
	for _, n := range ns {
		if n.Role != "text" {
			return false
		}
	}
	return true
}

// truncMarker ends a snapshot cut by maxChars.
const truncMarker = "[...TRUNCATED - page too large]"

// truncate cuts text at a line boundary so that the kept lines, a blank
// line and the marker fit in maxChars (0 = uncapped). Below 31 characters
// the marker is "…".
func truncate(text string, maxChars int) (string, bool) {
	if maxChars <= 0 || len(text) <= maxChars {
		return text, false
	}
	marker := truncMarker
	if maxChars < 31 {
		marker = "…"
	}
	budget := maxChars - 2 - len(marker)
	kept := ""
	if budget > 0 {
		cut := text[:budget+1]
		if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
			kept = text[:i]
		}
	}
	if kept == "" {
		return marker, true
	}
	return kept + "\n\n" + marker, true
}

// summarize recomputes the refs map and stats from the visible lines, so a
// truncated snapshot does not return refs for lines it cut.
func summarize(text string) (map[string]refInfo, stats) {
	refs := map[string]refInfo{}
	st := stats{Chars: len(text)}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		st.Lines++
		i := strings.Index(line, "[ref=")
		if i < 0 {
			continue
		}
		j := strings.IndexByte(line[i:], ']')
		if j < 0 {
			continue
		}
		ref := line[i+5 : i+j]
		head := strings.TrimLeft(line, " ")
		head = strings.TrimPrefix(head, "- ")
		role, rest, _ := strings.Cut(head, " ")
		info := refInfo{Role: role}
		if strings.HasPrefix(rest, "\"") {
			var name string
			dec := json.NewDecoder(strings.NewReader(rest))
			if dec.Decode(&name) == nil {
				info.Name = name
			}
		}
		refs[ref] = info
		st.Refs++
		if interactiveRoles()[role] {
			st.Interactive++
		}
	}
	return refs, st
}
