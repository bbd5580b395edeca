package browser

import (
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// structuralRoles are wrappers --compact drops when unnamed (their children
// move up a level).
var structuralRoles = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"application": true, "directory": true, "document": true, "generic": true, "grid": true, "group": true,
		"ignored": true, "list": true, "menu": true, "menubar": true, "none": true, "presentation": true, "row": true,
		"rowgroup": true, "table": true, "tablist": true, "toolbar": true, "tree": true, "treegrid": true,
	}
}) // built on first use, not in every process's init

// compactNodes drops unnamed structural wrappers, then prunes what carries
// nothing: a node stays if it has a ref, an interactive role, text of its
// own, or a kept descendant. It copies; the input is not changed.
func compactNodes(ns []*node) []*node {
	var out []*node
	for _, n := range ns {
		if n.Role == "text" {
			out = append(out, n)
			continue
		}
		kids := compactNodes(n.Children)
		if structuralRoles()[n.Role] && n.Name == "" {
			out = append(out, kids...)
			continue
		}
		if n.Ref == "" && !interactiveRoles()[n.Role] && n.Value == "" && n.URL == "" && len(kids) == 0 {
			continue
		}
		c := *n
		c.Children = kids
		out = append(out, &c)
	}
	return out
}

// maxTreeDepth is the hard cap on printed depth; deeper lines are cut and
// the snapshot says so.
const maxTreeDepth = 100

// deepMarker ends a snapshot cut at maxTreeDepth.
const deepMarker = "[...TRUNCATED - accessibility tree too deep]"

// cutDepth drops nodes deeper than max (0 = top-level lines only). Text a
// node shows inline (its only children are text) stays with it. It reports
// whether anything was cut.
func cutDepth(ns []*node, max int) ([]*node, bool) {
	cut := false
	var walk func(ns []*node, d int) []*node
	walk = func(ns []*node, d int) []*node {
		out := make([]*node, 0, len(ns))
		for _, n := range ns {
			c := *n
			if len(n.Children) > 0 && !allText(n.Children) {
				if d >= max {
					c.Children = nil
					cut = true
				} else {
					c.Children = walk(n.Children, d+1)
				}
			}
			out = append(out, &c)
		}
		return out
	}
	return walk(ns, 0), cut
}

// scopeTo keeps the outermost nodes of the main document that are the DOM
// node at back or inside it, with their whole subtrees (frames included).
func scopeTo(ns []*node, main *frameDoc, back proto.DOMBackendNodeID) []*node {
	inside := func(b proto.DOMBackendNodeID) bool {
		for i := 0; b != 0 && i < 10000; i++ {
			if b == back {
				return true
			}
			di := main.idx[b]
			if di == nil {
				return false
			}
			b = di.parent
		}
		return false
	}
	var out []*node
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			if n.doc == main && inside(n.back) {
				out = append(out, n)
				continue
			}
			walk(n.Children)
		}
	}
	walk(ns)
	return out
}

// linksBlock lists the links of the printed tree with absolute URLs
// (--urls): "N. text -> href".
func linksBlock(ns []*node) string {
	var b strings.Builder
	n := 0
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, x := range ns {
			if x.Role == "link" && x.URL != "" {
				n++
				b.WriteString(strconv.Itoa(n))
				b.WriteString(". ")
				text := oneLine(x.Name)
				if text == "" {
					text = "(no text)"
				}
				b.WriteString(text)
				b.WriteString(" -> ")
				b.WriteString(absURL(x))
				b.WriteByte('\n')
			}
			walk(x.Children)
		}
	}
	walk(ns)
	if n == 0 {
		return ""
	}
	return "Links:\n" + strings.TrimSuffix(b.String(), "\n")
}

// absURL resolves a link's href against its document's base URL.
func absURL(n *node) string {
	href := oneLine(n.URL)
	if n.doc == nil {
		return href
	}
	di := n.doc.idx[n.back]
	if di == nil || di.base == "" {
		return href
	}
	base, err := url.Parse(di.base)
	if err != nil {
		return href
	}
	ref, err := url.Parse(href)
	if err != nil {
		return href
	}
	return base.ResolveReference(ref).String()
}
