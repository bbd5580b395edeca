package browser

import (
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// The snapshot tree follows the original's (Playwright's aria snapshot):
// it walks the DOM from <body> (open and closed shadow roots, slots by
// their assigned nodes), makes a node of every rendered element that has a
// role (an element without one is "generic"), and keeps text nodes as
// text. Chromium's accessibility tree supplies roles, accessible names and
// states, mapped to ARIA roles. Then the tree is distilled (distill) the
// way the original does it: adjacent text merged, unnamed single-child
// generics unwrapped, names that only repeat printed content dropped.

// blockTags are elements displayed as blocks by default: their text does
// not run into a neighbour's. (The original reads the computed display;
// this is the user-agent stylesheet's default.)
var blockTags = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`address article aside blockquote body br center dd details dialog dir div dl dt
		fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li main menu nav ol p pre
		search section summary table caption thead tbody tfoot tr td th ul option optgroup select textarea input button`) {
		m[t] = true
	}
	return m
}) // built on first use, not in every process's init

// hiddenReasons are Chromium's reasons for an ignored node that mean the
// element is not rendered for the user (the others, such as "uninteresting"
// or "labelFor", leave a visible element the snapshot still shows; so does
// aria-hidden, which the original shows when the element is visible).
var hiddenReasons = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"notRendered": true, "notVisible": true, "inertElement": true, "inertSubtree": true,
		"activeModalDialog": true}
}) // built on first use, not in every process's init

// treeBuilder builds one document's nodes.
type treeBuilder struct {
	doc       *frameDoc
	ax        map[proto.DOMBackendNodeID]*proto.AccessibilityAXNode
	byAXID    map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode
	ids       map[string]proto.DOMBackendNodeID // element ids, for aria-labelledby
	iframes   *[]*node
	inPointer int // nodes with [cursor=pointer] being visited: their content prints none
}

// laidOut says whether addLayout answered for the document's session.
func (b *treeBuilder) laidOut() bool { return b.doc.idx[0] != nil && b.doc.idx[0].layout }

// isBlock says whether an element's text stays apart from its neighbours':
// display other than inline (none and contents included, as the
// original's test), or a <br>.
func (b *treeBuilder) isBlock(di *domInfo) bool {
	if di.tag == "br" {
		return true
	}
	if !b.laidOut() {
		return blockTags()[di.tag]
	}
	return !di.laidOut || di.display != "inline"
}

// isInline says whether an element is displayed inline.
func (b *treeBuilder) isInline(di *domInfo) bool {
	if !b.laidOut() {
		return !blockTags()[di.tag]
	}
	return di.laidOut && di.display == "inline"
}

// pointer says whether a node prints [cursor=pointer]: its computed cursor
// is pointer, its box has an area (the original gives no ref otherwise),
// and no node around it already printed one. Links without layout data.
func (b *treeBuilder) pointer(n *node, di *domInfo) bool {
	if b.inPointer > 0 || !n.bindable {
		return false
	}
	if !b.laidOut() {
		return n.Role == "link"
	}
	return di.cursor == "pointer" && di.area
}

// shown says whether an element is rendered. Chromium's tree leaves out
// some uninteresting elements (custom-element hosts) as well as unrendered
// ones; a left-out element counts as rendered when a node right inside it
// is in the tree and rendered.
func (b *treeBuilder) shown(id proto.DOMBackendNodeID) bool {
	if ax := b.ax[id]; ax != nil {
		return !axHidden(ax)
	}
	di := b.doc.idx[id]
	if di == nil || di.typ != 1 {
		return false
	}
	for _, k := range di.kids {
		if ax := b.ax[k]; ax != nil && !axHidden(ax) {
			return true
		}
	}
	return false
}

// buildDocTree builds the tree of the document whose body is body, the
// root's focus (RootWebArea focused) giving the body its [active].
func buildDocTree(doc *frameDoc, axNodes []*proto.AccessibilityAXNode, body proto.DOMBackendNodeID, iframes *[]*node) []*node {
	b := &treeBuilder{doc: doc, ax: make(map[proto.DOMBackendNodeID]*proto.AccessibilityAXNode, len(axNodes)),
		ids: map[string]proto.DOMBackendNodeID{}, iframes: iframes}
	active := false
	b.byAXID = axByID(axNodes)
	for _, n := range axNodes {
		if n.BackendDOMNodeID != 0 {
			b.ax[n.BackendDOMNodeID] = n
		}
		if axStr(n.Role) == "RootWebArea" && axProp(n, "focused") == "true" && doc.frame == "" && doc.depth == 0 {
			active = true
		}
	}
	di := doc.idx[body]
	if di == nil {
		return nil
	}
	b.indexIDs(body)
	root := &node{Role: "fragment"}
	bn := &node{Role: "generic", Active: active, back: body, doc: doc, bindable: di.attrs != nil}
	if active {
		bn.States = []string{"active"}
	}
	root.Children = append(root.Children, bn)
	b.process(bn, body, true)
	distill(root, nil)
	return root.Children
}

func (b *treeBuilder) indexIDs(id proto.DOMBackendNodeID) {
	di := b.doc.idx[id]
	if di == nil {
		return
	}
	if v := di.attrs["id"]; v != "" {
		if _, dup := b.ids[v]; !dup {
			b.ids[v] = id
		}
	}
	for _, k := range di.kids {
		b.indexIDs(k)
	}
}

// visit adds what the DOM node id contributes to parent.
func (b *treeBuilder) visit(parent *node, id proto.DOMBackendNodeID, visible bool) {
	di := b.doc.idx[id]
	if di == nil {
		return
	}
	if di.typ == 3 {
		if ax := b.ax[id]; ax != nil {
			visible = !axHidden(ax)
		}
		if visible && di.text != "" && parent.Role != "textbox" {
			parent.Children = append(parent.Children, &node{Role: "text", Name: di.text})
		}
		return
	}
	if di.typ != 1 {
		return
	}
	ax := b.ax[id]
	vis := b.shown(id)
	target := parent
	if vis {
		if n := b.toNode(id, di, ax); n != nil {
			parent.Children = append(parent.Children, n)
			target = n
			if n.Cursor = b.pointer(n, di); n.Cursor {
				b.inPointer++
				defer func() { b.inPointer-- }()
			}
		}
	}
	b.process(target, id, vis)
}

// process visits an element's children into n, with the space a block
// element puts around its text, then sets the props the original shows.
func (b *treeBuilder) process(n *node, id proto.DOMBackendNodeID, visible bool) {
	di := b.doc.idx[id]
	block := b.isBlock(di)
	if block {
		n.Children = append(n.Children, &node{Role: "text", Name: " "})
	}
	if visible {
		b.pseudoText(n, di.before)
	}
	gaps := b.whitespace(id)
	for _, k := range di.kids {
		if g, ok := gaps[k]; ok && visible {
			n.Children = append(n.Children, &node{Role: "text", Name: g})
		}
		b.visit(n, k, visible)
	}
	if g, ok := gaps[0]; ok && visible {
		n.Children = append(n.Children, &node{Role: "text", Name: g})
	}
	if visible {
		b.pseudoText(n, di.after)
	}
	if block {
		n.Children = append(n.Children, &node{Role: "text", Name: " "})
	}
	if n.back != id {
		return
	}
	switch n.Role {
	case "link":
		if href, ok := di.attrs["href"]; ok {
			n.URL = href
			n.hasURL = true
		}
	case "textbox":
		if ph, ok := di.attrs["placeholder"]; ok && ph != n.Name {
			n.Placeholder = ph
		}
	}
}

// whitespace finds the rendered whitespace between an element's children:
// the DevTools DOM leaves whitespace-only text nodes out, Chromium's tree
// keeps the rendered ones. It maps the child each one precedes (0 = the
// end) to its text.
func (b *treeBuilder) whitespace(id proto.DOMBackendNodeID) map[proto.DOMBackendNodeID]string {
	ax := b.ax[id]
	if ax == nil {
		return nil
	}
	var gaps map[proto.DOMBackendNodeID]string
	pending := ""
	for _, c := range ax.ChildIDs {
		ch := b.byAXID[c]
		if ch == nil {
			continue
		}
		if ch.BackendDOMNodeID != 0 && b.doc.idx[ch.BackendDOMNodeID] == nil && axStr(ch.Role) == "StaticText" {
			pending += axStr(ch.Name)
			continue
		}
		if pending != "" && ch.BackendDOMNodeID != 0 {
			if k := b.childOf(id, ch.BackendDOMNodeID); k != 0 {
				if gaps == nil {
					gaps = map[proto.DOMBackendNodeID]string{}
				}
				gaps[k] += pending
			}
			pending = ""
		}
	}
	if pending != "" {
		if gaps == nil {
			gaps = map[proto.DOMBackendNodeID]string{}
		}
		gaps[0] = pending
	}
	return gaps
}

// childOf returns the child of element id (its light child or a child of
// its shadow root) that holds the node x, or 0. (Chromium's tree skips the
// elements it finds uninteresting, so a child there may be a grandchild.)
func (b *treeBuilder) childOf(id, x proto.DOMBackendNodeID) proto.DOMBackendNodeID {
	for i := 0; x != 0 && i < 1000; i++ {
		di := b.doc.idx[x]
		if di == nil {
			return 0
		}
		p := di.parent
		if p == id {
			return x
		}
		if pd := b.doc.idx[p]; pd != nil && pd.typ == 11 && pd.parent == id {
			return x
		}
		x = p
	}
	return 0
}

// textOf is the text content of a DOM subtree.
func (b *treeBuilder) textOf(id proto.DOMBackendNodeID) string {
	di := b.doc.idx[id]
	if di == nil {
		return ""
	}
	if di.typ == 3 {
		return di.text
	}
	var t strings.Builder
	for _, k := range di.kids {
		t.WriteString(b.textOf(k))
	}
	return t.String()
}

// pseudoText adds the text a ::before or ::after pseudo-element generates
// (Chromium's tree holds it under the pseudo-element's node), spaced when
// the pseudo-element is a box of its own rather than inline.
func (b *treeBuilder) pseudoText(n *node, id proto.DOMBackendNodeID) {
	ax := b.ax[id]
	if id == 0 || ax == nil || axHidden(ax) {
		return
	}
	var t strings.Builder
	var walk func(a *proto.AccessibilityAXNode)
	walk = func(a *proto.AccessibilityAXNode) {
		if axStr(a.Role) == "StaticText" {
			t.WriteString(axStr(a.Name))
			return
		}
		for _, c := range a.ChildIDs {
			if ch := b.byAXID[c]; ch != nil {
				walk(ch)
			}
		}
	}
	walk(ax)
	text := t.String()
	if text == "" {
		return
	}
	if !ax.Ignored { // a generic box: display other than inline
		text = " " + text + " "
	}
	n.Children = append(n.Children, &node{Role: "text", Name: text})
}

// toNode makes the node of a rendered element, or nil when it has none.
func (b *treeBuilder) toNode(id proto.DOMBackendNodeID, di *domInfo, ax *proto.AccessibilityAXNode) *node {
	if di.tag == "iframe" || di.tag == "frame" {
		n := &node{Role: "iframe", back: id, doc: b.doc, bindable: true}
		*b.iframes = append(*b.iframes, n)
		return n
	}
	if ax == nil { // left out of Chromium's tree as uninteresting
		ax = &proto.AccessibilityAXNode{Ignored: true}
	}
	name := ""
	if !ax.Ignored {
		name = oneLine(axStr(ax.Name))
	}
	role := ariaRole(ax, di, name)
	if role == "" {
		return nil
	}
	if di.tag == "optgroup" {
		if p := b.doc.idx[di.parent]; p != nil && p.tag == "select" {
			if _, multi := p.attrs["multiple"]; !multi {
				return nil // a drop-down's groups: its options show flat
			}
		}
	}
	var figcaption proto.DOMBackendNodeID
	if role == "figure" && name == "" && di.attrs["aria-label"] == "" && di.attrs["aria-labelledby"] == "" {
		// HTML-AAM names a figure by its caption; Chromium leaves it unnamed.
		for _, k := range di.kids {
			if kd := b.doc.idx[k]; kd != nil && kd.tag == "figcaption" {
				figcaption, name = k, oneLine(b.textOf(k))
				break
			}
		}
	}
	fromContent := nameSource(ax) == "contents"
	if di.tag != "summary" && (namelessRoles()[role] || (fromContent && !nameFromContentRoles()[role])) {
		name = "" // accname: these roles take no name, or none from their content
	}
	if role == "generic" && b.isInline(di) && di.onlyText {
		return nil // an inline wrapper of one text: the text goes to the parent
	}
	n := &node{Role: role, Name: name, back: id, doc: b.doc, bindable: role != "option" && di.attrs != nil}
	if !ax.Ignored {
		b.states(n, ax, di)
	}
	if name != "" {
		n.contrib = b.nameSources(di)
		if figcaption != 0 {
			n.contrib = []proto.DOMBackendNodeID{figcaption}
		}
		n.fromContent = fromContent && di.tag != "input"
	}
	if di.tag == "textarea" || (di.tag == "input" && !map[string]bool{"checkbox": true, "radio": true, "file": true}[strings.ToLower(di.attrs["type"])]) {
		v := axStr(ax.Value)
		if v == "" {
			switch strings.ToLower(di.attrs["type"]) {
			case "submit", "reset", "button", "image":
				v = di.attrs["value"]
				if _, ok := di.attrs["value"]; !ok {
					v = name
				}
			}
		}
		n.Children = append(n.Children, &node{Role: "text", Name: v})
	}
	return n
}

// states sets the bracketed states in the order the original prints them.
func (b *treeBuilder) states(n *node, ax *proto.AccessibilityAXNode, di *domInfo) {
	switch axProp(ax, "checked") {
	case "true":
		n.States = append(n.States, "checked")
	case "mixed":
		n.States = append(n.States, "checked=mixed")
	}
	if axProp(ax, "disabled") == "true" {
		n.States = append(n.States, "disabled")
	}
	if expandedRoles()[n.Role] && axProp(ax, "expanded") == "true" {
		n.States = append(n.States, "expanded")
	}
	if axProp(ax, "focused") == "true" {
		n.Active = true
		n.States = append(n.States, "active")
	}
	switch inv := axProp(ax, "invalid"); inv {
	case "true":
		n.States = append(n.States, "invalid")
	case "grammar", "spelling":
		n.States = append(n.States, "invalid="+inv)
	}
	if n.Role == "heading" {
		if l := axProp(ax, "level"); l != "" && l != "0" {
			n.States = append(n.States, "level="+l)
		}
	} else if l := di.attrs["aria-level"]; l != "" && (n.Role == "listitem" || n.Role == "row" || n.Role == "treeitem") {
		n.States = append(n.States, "level="+l)
	}
	switch axProp(ax, "pressed") {
	case "true":
		n.States = append(n.States, "pressed")
	case "mixed":
		n.States = append(n.States, "pressed=mixed")
	}
	if axProp(ax, "selected") == "true" {
		n.States = append(n.States, "selected")
	}
}

// nameSources returns the elements whose text made the node's name when
// they are elements of its own (aria-labelledby, a table's caption, a
// fieldset's legend).
func (b *treeBuilder) nameSources(di *domInfo) []proto.DOMBackendNodeID {
	if lb := strings.Fields(di.attrs["aria-labelledby"]); len(lb) > 0 {
		var out []proto.DOMBackendNodeID
		for _, id := range lb {
			if e, ok := b.ids[id]; ok {
				out = append(out, e)
			}
		}
		return out
	}
	if strings.TrimSpace(di.attrs["aria-label"]) != "" {
		return nil
	}
	want := map[string]string{"table": "caption", "fieldset": "legend"}[di.tag]
	if want != "" {
		for _, k := range di.kids {
			if kd := b.doc.idx[k]; kd != nil && kd.tag == want {
				return []proto.DOMBackendNodeID{k}
			}
		}
		return nil
	}
	return nil
}

// distill applies the original's clean-up to n's subtree (children first)
// and returns what replaces n in its parent: n, nothing, or its children.
func distill(n *node, ancestors []*node) []*node {
	var under map[*node]bool // element nodes inside n before clean-up
	if len(n.contrib) > 0 || n.fromContent {
		under = map[*node]bool{}
		var walk func(ns []*node)
		walk = func(ns []*node) {
			for _, c := range ns {
				if c.Role != "text" {
					under[c] = true
					walk(c.Children)
				}
			}
		}
		walk(n.Children)
	}
	anc := append(ancestors, n)
	var kids []*node
	for _, c := range n.Children {
		if c.Role == "text" {
			kids = append(kids, c)
			continue
		}
		kids = append(kids, distill(c, anc)...)
	}
	n.Children = kids
	mergeText(n)
	// A nameless image says nothing.
	if n.Role == "img" && n.Name == "" && len(n.Children) == 0 {
		return nil
	}
	if under != nil {
		dropRedundantName(n, under)
	}
	// A generic holding only an unnamed generic of one text takes the text.
	if n.Role == "generic" && !n.hasProps() && len(n.Children) == 1 {
		if c := n.Children[0]; c.Role == "generic" && c.Name == "" && !c.Active && !c.hasProps() &&
			len(c.Children) == 1 && c.Children[0].Role == "text" {
			n.Children = []*node{c.Children[0]}
		}
	}
	// A generic that only repeats its parent's name (a legend) goes.
	if p := ancestors; len(p) > 0 && p[len(p)-1].Name != "" && n.Role == "generic" && !n.Active && !n.hasProps() {
		text := ""
		if n.Name != "" {
			if len(n.Children) == 0 {
				text = n.Name
			}
		} else if len(n.Children) == 1 && n.Children[0].Role == "text" {
			text = n.Children[0].Name
		}
		if text != "" && text == p[len(p)-1].Name {
			n.repeated = true
			return nil
		}
	}
	// An unnamed generic around one element (or none) is only a wrapper.
	if n.Role == "generic" && n.Name == "" && len(n.Children) <= 1 && allElements(n.Children) {
		return n.Children
	}
	return []*node{n}
}

// mergeText joins adjacent text children with whitespace collapsed, drops
// empty ones, and drops a lone text that is the node's name.
func mergeText(n *node) {
	var out []*node
	var buf strings.Builder
	flush := func() {
		if t := oneLine(buf.String()); t != "" {
			out = append(out, &node{Role: "text", Name: t})
		}
		buf.Reset()
	}
	for _, c := range n.Children {
		if c.Role == "text" {
			buf.WriteString(c.Name)
			continue
		}
		flush()
		out = append(out, c)
	}
	flush()
	if len(out) == 1 && out[0].Role == "text" && out[0].Name == n.Name {
		out = nil
	}
	n.Children = out
}

// dropRedundantName clears a name made only of text the node's printed
// content shows anyway: every element it came from is still printed inside.
func dropRedundantName(n *node, under map[*node]bool) {
	var srcs []*node
	if n.fromContent {
		for c := range under {
			if c.bindable || c.Role == "option" {
				srcs = append(srcs, c)
			}
		}
	} else {
		for _, id := range n.contrib {
			found := false
			for c := range under {
				if c.back == id && c.doc == n.doc {
					srcs = append(srcs, c)
					found = true
				}
			}
			if !found {
				return // a source outside the node (or not printed)
			}
		}
	}
	if len(srcs) == 0 {
		return
	}
	for _, s := range srcs {
		if s.repeated {
			return
		}
	}
	n.Name = ""
}

func allElements(ns []*node) bool {
	for _, c := range ns {
		if c.Role == "text" {
			return false
		}
	}
	return true
}
