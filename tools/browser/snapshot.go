package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// Refs live in the page itself: each referenced element carries the
// attribute refAttr="eN", and the document element carries the next free
// number in nextAttr. So a ref stays bound to its element for as long as
// the element exists, whichever process (CLI call or gateway) took the
// snapshot, and a new element never reuses an old element's number. A
// navigation starts a new document and so new refs.
const (
	refAttr  = "data-openclaw-ref"
	nextAttr = "data-openclaw-ref-next"
)

// domInfo is what the snapshot needs of a DOM element.
type domInfo struct {
	nodeID proto.DOMNodeID
	attrs  map[string]string
}

// domIndex maps backend node ids to their element and attributes, from one
// DOM.getDocument call.
func domIndex(pg *rod.Page) (map[proto.DOMBackendNodeID]*domInfo, *proto.DOMNode, error) {
	depth := -1
	doc, err := proto.DOMGetDocument{Depth: &depth}.Call(pg)
	if err != nil {
		return nil, nil, err
	}
	idx := map[proto.DOMBackendNodeID]*domInfo{}
	var html *proto.DOMNode
	var walk func(n *proto.DOMNode)
	walk = func(n *proto.DOMNode) {
		if n.NodeType == 1 {
			di := &domInfo{nodeID: n.NodeID, attrs: map[string]string{}}
			for i := 0; i+1 < len(n.Attributes); i += 2 {
				di.attrs[n.Attributes[i]] = n.Attributes[i+1]
			}
			idx[n.BackendNodeID] = di
			if html == nil && strings.EqualFold(n.NodeName, "html") {
				html = n
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc.Root)
	return idx, html, nil
}

// roleAlias maps Chromium's internal role names to the ARIA names the
// snapshot prints.
var roleAlias = map[string]string{"image": "img", "Iframe": "iframe", "form": "generic", "MenuListOption": "option"}

// transparentRoles are folded into their parent: not printed, no depth.
var transparentRoles = map[string]bool{"RootWebArea": true, "none": true, "presentation": true,
	"LabelText": true, "MenuListPopup": true, "InlineTextBox": true, "LineBreak": true, "ListMarker": true}

func axStr(v *proto.AccessibilityAXValue) string {
	if v == nil || v.Value.Nil() {
		return ""
	}
	if s, ok := v.Value.Val().(string); ok {
		return s
	}
	return fmt.Sprint(v.Value.Val())
}

// capture is a raw snapshot: the tree and the ref bindings it made.
type capture struct {
	nodes  []*node
	aria   []string // the raw tree as text lines (format aria)
	newRef int      // refs assigned by this snapshot
}

// takeSnapshot reads the accessibility tree and the DOM, binds a ref to
// every printed element that lacks one, and returns the tree.
func takeSnapshot(ctx context.Context, pg *rod.Page, wantAria bool, ariaLimit int) (*capture, error) {
	pg = pg.Context(ctx)
	ax, err := proto.AccessibilityGetFullAXTree{}.Call(pg)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: accessibility tree: %v", err)
	}
	idx, html, err := domIndex(pg)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: DOM: %v", err)
	}
	byID := make(map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, len(ax.Nodes))
	for _, n := range ax.Nodes {
		byID[n.NodeID] = n
	}
	c := &capture{}
	if len(ax.Nodes) == 0 {
		return c, nil
	}
	if wantAria {
		c.aria = ariaLines(ax.Nodes[0], byID, ariaLimit)
		return c, nil
	}
	next := 1
	if html != nil {
		if n, err := strconv.Atoi(idx[html.BackendNodeID].attrs[nextAttr]); err == nil && n > 0 {
			next = n
		}
	}
	seen := map[string]bool{}
	var bindErr error
	bind := func(back proto.DOMBackendNodeID) string {
		di := idx[back]
		if di == nil {
			return ""
		}
		if r := di.attrs[refAttr]; r != "" && !seen[r] {
			seen[r] = true
			return r
		}
		// A new element, or a clone carrying another element's ref.
		r := "e" + strconv.Itoa(next)
		next++
		if err := (proto.DOMSetAttributeValue{NodeID: di.nodeID, Name: refAttr, Value: r}).Call(pg); err != nil {
			bindErr = err
			return ""
		}
		seen[r] = true
		c.newRef++
		return r
	}
	var build func(n *proto.AccessibilityAXNode) []*node
	build = func(n *proto.AccessibilityAXNode) []*node {
		var kids []*node
		for _, id := range n.ChildIDs {
			if ch := byID[id]; ch != nil {
				kids = append(kids, build(ch)...)
			}
		}
		role := axStr(n.Role)
		if a, ok := roleAlias[role]; ok {
			role = a
		}
		name := axStr(n.Name)
		if n.Ignored || transparentRoles[role] || (role == "generic" && name == "" && len(kids) <= 1) {
			return kids
		}
		if role == "StaticText" {
			if strings.TrimSpace(name) == "" {
				return nil
			}
			return []*node{{Role: "text", Name: name}}
		}
		out := &node{Role: role, Name: name}
		for _, p := range n.Properties {
			v := p.Value
			switch p.Name {
			case "checked":
				switch axStr(v) {
				case "true":
					out.States = append(out.States, "checked")
				case "mixed":
					out.States = append(out.States, "checked=mixed")
				}
			case "selected", "disabled", "expanded", "pressed":
				if v != nil && v.Value.Bool() {
					out.States = append(out.States, string(p.Name))
				}
			case "level":
				out.States = append(out.States, "level="+axStr(v))
			}
		}
		di := idx[n.BackendDOMNodeID]
		switch role {
		case "textbox", "searchbox", "spinbutton":
			out.Value = axStr(n.Value)
			kids = nil // the editor's inner text is the value
			if di != nil {
				out.Placeholder = di.attrs["placeholder"]
			}
		case "link":
			out.Cursor = true
			if di != nil {
				out.URL = di.attrs["href"]
			}
		}
		// Text children that only repeat the name add nothing.
		if name != "" && len(kids) > 0 && allText(kids) {
			var t []string
			for _, k := range kids {
				t = append(t, oneLine(k.Name))
			}
			if strings.Join(t, " ") == oneLine(name) || strings.Join(t, "") == oneLine(name) {
				kids = nil
			}
		}
		out.Children = kids
		if role != "option" {
			out.back = n.BackendDOMNodeID
		}
		return []*node{out}
	}
	c.nodes = build(ax.Nodes[0])
	// Refs are numbered in document (pre-order) order.
	var assign func(ns []*node)
	assign = func(ns []*node) {
		for _, n := range ns {
			if n.back != 0 {
				n.Ref = bind(n.back)
			}
			assign(n.Children)
		}
	}
	assign(c.nodes)
	if bindErr != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: binding refs: %v", bindErr)
	}
	if c.newRef > 0 && html != nil {
		if err := (proto.DOMSetAttributeValue{NodeID: html.NodeID, Name: nextAttr, Value: strconv.Itoa(next)}).Call(pg); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "snapshot: binding refs: %v", err)
		}
	}
	return c, nil
}

// ariaLines renders the raw accessibility tree (format aria): every node,
// depth-first, with axN refs, stopping at limit nodes.
func ariaLines(root *proto.AccessibilityAXNode, byID map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, limit int) []string {
	var out []string
	var walk func(n *proto.AccessibilityAXNode, depth int)
	walk = func(n *proto.AccessibilityAXNode, depth int) {
		if len(out) >= limit {
			return
		}
		line := strings.Repeat("  ", depth) + "- " + axStr(n.Role)
		if name := axStr(n.Name); name != "" {
			line += " " + quote(name)
		}
		out = append(out, line+fmt.Sprintf(" [ref=ax%d]", len(out)+1))
		for _, id := range n.ChildIDs {
			if ch := byID[id]; ch != nil {
				walk(ch, depth+1)
			}
		}
	}
	walk(root, 0)
	return out
}
