package browser

import (
	"encoding/json"
	"strings"
	"sync"
)

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
