package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// Refs live in the page itself: each referenced element carries the
// attribute refAttr="eN", and its document's root element carries the next
// free number in nextAttr. So a ref stays bound to its element for as long
// as the element exists, whichever process (CLI call or gateway) took the
// snapshot, and a new element never reuses an old element's number. A
// navigation starts a new document and so new refs. Numbers are handed out
// page-side in one JavaScript call per document (see bindRefs), so two
// snapshots racing never give one number to two elements.
const (
	refAttr  = "data-openclaw-ref"
	nextAttr = "data-openclaw-ref-next"
)

// domInfo is what the snapshot needs of a DOM node.
type domInfo struct {
	parent proto.DOMBackendNodeID
	attrs  map[string]string
	base   string            // the node's document base URL (links resolve against it)
	frame  proto.PageFrameID // frame owner elements: the frame they show
	inProc bool              // that frame's document is in this session's DOM
}

// domIndex maps backend node ids to their nodes, from one DOM.getDocument
// call that pierces open shadow roots and in-process frame documents.
func domIndex(pg *rod.Page) (map[proto.DOMBackendNodeID]*domInfo, error) {
	depth := -1
	doc, err := proto.DOMGetDocument{Depth: &depth, Pierce: true}.Call(pg)
	if err != nil {
		return nil, err
	}
	idx := map[proto.DOMBackendNodeID]*domInfo{}
	var walk func(n *proto.DOMNode, parent proto.DOMBackendNodeID, base string)
	walk = func(n *proto.DOMNode, parent proto.DOMBackendNodeID, base string) {
		if n.NodeType == 9 && n.BaseURL != "" { // a document: its own base
			base = n.BaseURL
		}
		di := &domInfo{parent: parent, base: base, frame: n.FrameID, inProc: n.ContentDocument != nil}
		if n.NodeType == 1 {
			di.attrs = make(map[string]string, len(n.Attributes)/2)
			for i := 0; i+1 < len(n.Attributes); i += 2 {
				di.attrs[n.Attributes[i]] = n.Attributes[i+1]
			}
		}
		idx[n.BackendNodeID] = di
		for _, c := range n.ShadowRoots {
			walk(c, n.BackendNodeID, base)
		}
		for _, c := range n.Children {
			walk(c, n.BackendNodeID, base)
		}
		if n.ContentDocument != nil {
			walk(n.ContentDocument, n.BackendNodeID, base)
		}
	}
	walk(doc.Root, 0, doc.Root.BaseURL)
	return idx, nil
}

// roleAlias maps Chromium's internal role names to the ARIA names the
// snapshot prints.
var roleAlias = sync.OnceValue(func() map[string]string {
	return map[string]string{"image": "img", "Iframe": "iframe", "IframePresentational": "iframe", "form": "generic", "MenuListOption": "option"}
}) // built on first use, not in every process's init

// transparentRoles are folded into their parent: not printed, no depth.
var transparentRoles = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"RootWebArea": true, "none": true, "presentation": true,
		"LabelText": true, "MenuListPopup": true, "InlineTextBox": true, "LineBreak": true, "ListMarker": true}
}) // built on first use, not in every process's init

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
	main   *frameDoc
}

// frameDoc is one document of the snapshot: the main frame, an in-process
// child frame (same session), or an out-of-process frame (its own target).
type frameDoc struct {
	pg     *rod.Page
	idx    map[proto.DOMBackendNodeID]*domInfo // the session's DOM
	frame  proto.PageFrameID                   // "" = the session's main frame
	prefix string                              // ref prefix: "", "f13", "f13f4"
	depth  int                                 // frame nesting
}

// maxFrameDepth bounds iframe nesting followed by one snapshot.
const maxFrameDepth = 5

// takeSnapshot reads the accessibility tree and the DOM of the page and of
// its frames, binds a ref to every printed element that lacks one, and
// returns the tree.
func takeSnapshot(ctx context.Context, pg *rod.Page, wantAria bool, ariaLimit int) (*capture, error) {
	pg = pg.Context(ctx)
	c := &capture{}
	if wantAria {
		ax, err := proto.AccessibilityGetFullAXTree{}.Call(pg)
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "snapshot: accessibility tree: %v", err)
		}
		if len(ax.Nodes) > 0 {
			c.aria = ariaLines(ax.Nodes[0], axByID(ax.Nodes), ariaLimit)
		}
		return c, nil
	}
	idx, err := domIndex(pg)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: DOM: %v", err)
	}
	c.main = &frameDoc{pg: pg, idx: idx}
	nodes, err := c.snapFrame(ctx, c.main)
	if err != nil {
		return nil, err
	}
	c.nodes = nodes
	return c, nil
}

func axByID(nodes []*proto.AccessibilityAXNode) map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode {
	byID := make(map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	return byID
}

// snapFrame builds one document's tree, binds its refs, then splices each
// iframe's document under the iframe's node.
func (c *capture) snapFrame(ctx context.Context, doc *frameDoc) ([]*node, error) {
	ax, err := proto.AccessibilityGetFullAXTree{FrameID: doc.frame}.Call(doc.pg)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: accessibility tree: %v", err)
	}
	if len(ax.Nodes) == 0 {
		return nil, nil
	}
	var iframes []*node
	nodes := buildTree(ax.Nodes[0], axByID(ax.Nodes), doc, &iframes)
	n, err := bindRefs(ctx, doc, nodes)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: binding refs: %v", err)
	}
	c.newRef += n
	for _, fr := range iframes {
		if fr.Ref == "" || doc.depth >= maxFrameDepth {
			continue
		}
		kids, err := c.childFrame(ctx, doc, fr)
		if err != nil {
			fr.Children = []*node{{Role: "text", Name: "(frame not readable: " + err.Error() + ")"}}
			continue
		}
		fr.Children = kids
	}
	return nodes, nil
}

// childFrame snapshots the document an iframe node shows: in the same
// session when Chromium keeps it in-process, else through its own target
// (site isolation puts cross-site frames in another renderer).
func (c *capture) childFrame(ctx context.Context, doc *frameDoc, fr *node) ([]*node, error) {
	di := doc.idx[fr.back]
	if di == nil || di.frame == "" {
		return nil, nil
	}
	child := &frameDoc{prefix: fr.Ref[:strings.LastIndexByte(fr.Ref, 'e')] + "f" + fr.Ref[strings.LastIndexByte(fr.Ref, 'e')+1:], depth: doc.depth + 1}
	if di.inProc {
		child.pg, child.idx, child.frame = doc.pg, doc.idx, di.frame
	} else {
		pg, err := attachFrame(ctx, doc.pg, di.frame)
		if err != nil {
			return nil, fmt.Errorf("attach: %w", err)
		}
		child.pg = pg.Context(ctx)
		if child.idx, err = domIndex(child.pg); err != nil {
			return nil, fmt.Errorf("DOM: %w", err)
		}
	}
	return c.snapFrame(ctx, child)
}

// buildTree turns one document's accessibility tree into rendered nodes,
// folding transparent wrappers, and collects its iframe nodes.
func buildTree(root *proto.AccessibilityAXNode, byID map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, doc *frameDoc, iframes *[]*node) []*node {
	var build func(n *proto.AccessibilityAXNode) []*node
	build = func(n *proto.AccessibilityAXNode) []*node {
		var kids []*node
		for _, id := range n.ChildIDs {
			if ch := byID[id]; ch != nil {
				kids = append(kids, build(ch)...)
			}
		}
		role := axStr(n.Role)
		if a, ok := roleAlias()[role]; ok {
			role = a
		}
		name := axStr(n.Name)
		if n.Ignored || transparentRoles()[role] || (role == "generic" && name == "" && len(kids) <= 1) {
			return kids
		}
		if role == "StaticText" {
			if strings.TrimSpace(name) == "" {
				return nil
			}
			return []*node{{Role: "text", Name: name, back: n.BackendDOMNodeID, doc: doc}}
		}
		out := &node{Role: role, Name: name, back: n.BackendDOMNodeID, doc: doc}
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
		di := doc.idx[n.BackendDOMNodeID]
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
		case "iframe":
			*iframes = append(*iframes, out)
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
		out.bindable = role != "option" && di != nil && di.attrs != nil
		return []*node{out}
	}
	return build(root)
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
