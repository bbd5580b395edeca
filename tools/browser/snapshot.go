package browser

import (
	"context"
	"fmt"
	"strings"

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
	typ    int               // DOM node type: 1 element, 3 text, 9 document
	tag    string            // elements: the lower-case local name
	text   string            // text nodes: the text
	// kids are the nodes the snapshot visits under this one, in order: a
	// slot's assigned nodes, else the light children not assigned to a
	// slot, then the children of its (open or closed) shadow root.
	kids     []proto.DOMBackendNodeID
	onlyText bool                   // exactly one light child, a text node
	content  proto.DOMBackendNodeID // frame owners: their in-process document
	before   proto.DOMBackendNodeID // its ::before pseudo-element (generated text)
	after    proto.DOMBackendNodeID // its ::after pseudo-element
	laidOut  bool                   // has a layout box (addLayout)
	display  string                 // computed display, cursor (addLayout)
	cursor   string
	area     bool                   // its box has a width and a height
	layout   bool                   // the main entry (idx[0]): addLayout answered
	body     proto.DOMBackendNodeID // documents: their <body>
}

// domIndex maps backend node ids to their nodes, from one DOM.getDocument
// call that pierces open shadow roots and in-process frame documents.
func domIndex(pg *rod.Page) (map[proto.DOMBackendNodeID]*domInfo, error) {
	layout := make(chan *proto.DOMSnapshotCaptureSnapshotResult, 1)
	go func() { layout <- captureLayout(pg) }() // in flight while the DOM is read
	depth := -1
	doc, err := proto.DOMGetDocument{Depth: &depth, Pierce: true}.Call(pg)
	if err != nil {
		<-layout
		return nil, err
	}
	idx := map[proto.DOMBackendNodeID]*domInfo{}
	var walk func(n *proto.DOMNode, parent proto.DOMBackendNodeID, base string)
	walk = func(n *proto.DOMNode, parent proto.DOMBackendNodeID, base string) {
		if n.NodeType == 9 && n.BaseURL != "" { // a document: its own base
			base = n.BaseURL
		}
		di := &domInfo{parent: parent, base: base, frame: n.FrameID, inProc: n.ContentDocument != nil,
			typ: n.NodeType, tag: strings.ToLower(n.LocalName), text: n.NodeValue}
		if n.NodeType == 1 {
			di.attrs = make(map[string]string, len(n.Attributes)/2)
			for i := 0; i+1 < len(n.Attributes); i += 2 {
				di.attrs[n.Attributes[i]] = n.Attributes[i+1]
			}
		}
		di.onlyText = len(n.Children) == 1 && n.Children[0].NodeType == 3
		if di.tag == "slot" && len(n.DistributedNodes) > 0 {
			for _, d := range n.DistributedNodes {
				di.kids = append(di.kids, d.BackendNodeID)
			}
		} else {
			authorShadow := false // a user-agent shadow root (a <select>'s) slots nothing the snapshot walks
			for _, sr := range n.ShadowRoots {
				authorShadow = authorShadow || sr.ShadowRootType != proto.DOMShadowRootTypeUserAgent
			}
			for _, c := range n.Children {
				if c.AssignedSlot == nil || !authorShadow {
					di.kids = append(di.kids, c.BackendNodeID)
				}
			}
			for _, sr := range n.ShadowRoots {
				if sr.ShadowRootType != proto.DOMShadowRootTypeUserAgent {
					for _, c := range sr.Children {
						di.kids = append(di.kids, c.BackendNodeID)
					}
				}
			}
		}
		if n.ContentDocument != nil {
			di.content = n.ContentDocument.BackendNodeID
		}
		for _, p := range n.PseudoElements {
			switch p.PseudoType {
			case proto.DOMPseudoTypeBefore:
				di.before = p.BackendNodeID
			case proto.DOMPseudoTypeAfter:
				di.after = p.BackendNodeID
			}
		}
		if n.NodeType == 9 {
			for _, h := range n.Children {
				if h.NodeType == 1 {
					for _, c := range h.Children {
						if c.NodeType == 1 && (strings.EqualFold(c.LocalName, "body") || strings.EqualFold(c.LocalName, "frameset")) {
							di.body = c.BackendNodeID
						}
					}
					if di.body == 0 { // no <body> (an SVG or XML document): its root element
						di.body = h.BackendNodeID
					}
				}
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
	idx[0] = &domInfo{typ: -1, body: idx[doc.Root.BackendNodeID].body} // the session's main document
	addLayout(<-layout, idx)
	return idx, nil
}

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
	root   proto.DOMBackendNodeID              // its document node in idx (0: the session's main document)
	ax     chan axTree                         // its accessibility tree when already requested
}

// axTree is an accessibility tree read ahead.
type axTree struct {
	res *proto.AccessibilityGetFullAXTreeResult
	err error
}

// body is the document's <body>, where its tree starts.
func (d *frameDoc) body() proto.DOMBackendNodeID {
	if di := d.idx[d.root]; di != nil {
		return di.body
	}
	return 0
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
	// The main frame's accessibility tree is read while the DOM is.
	axc := make(chan axTree, 1)
	go func() {
		ax, err := proto.AccessibilityGetFullAXTree{}.Call(pg)
		axc <- axTree{ax, err}
	}()
	idx, err := domIndex(pg)
	if err != nil {
		<-axc
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: DOM: %v", err)
	}
	c.main = &frameDoc{pg: pg, idx: idx, ax: axc}
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
	var ax *proto.AccessibilityGetFullAXTreeResult
	var err error
	if doc.ax != nil {
		got := <-doc.ax
		ax, err = got.res, got.err
	} else {
		ax, err = proto.AccessibilityGetFullAXTree{FrameID: doc.frame}.Call(doc.pg)
	}
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: accessibility tree: %v", err)
	}
	if len(ax.Nodes) == 0 {
		return nil, nil
	}
	var iframes []*node
	nodes := buildDocTree(doc, ax.Nodes, doc.body(), &iframes)
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
		child.pg, child.idx, child.frame, child.root = doc.pg, doc.idx, di.frame, di.content
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
