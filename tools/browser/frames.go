package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// refPath is a ref as snapshots print it: the frames it lies in, each
// named by its iframe's ref number in the enclosing document, then the
// element's own ref: e7, f13e2 (element e2 of the frame iframe e13 shows),
// f13f4e1.
var refPath = sync.OnceValue(func() *regexp.Regexp { // compiled on first use: {0,8} expands the program, and init runs in every process
	return regexp.MustCompile(`^((?:f[1-9][0-9]{0,8})*)(e[1-9][0-9]{0,8})$`)
})

// findJS finds the elements carrying a ref in the document, else in its
// open shadow roots (a walk of every element, so only when the document
// has none); it returns the element when there is exactly one, else the
// count.
const findJS = `(ref) => {
	const sel = '[` + refAttr + `="' + ref + '"]';
	const found = [...document.querySelectorAll(sel)];
	if (found.length) return found.length === 1 ? found[0] : found.length;
	const walk = (root) => {
		for (const e of root.querySelectorAll("*")) {
			if (e.shadowRoot) { found.push(...e.shadowRoot.querySelectorAll(sel)); walk(e.shadowRoot); }
		}
	};
	walk(document);
	return found.length === 1 ? found[0] : found.length;
}`

// resolveRef finds the element a ref names, entering the frames its prefix
// names (in-process frames through the same session, out-of-process ones
// through their own target) and open shadow roots.
func resolveRef(pg *rod.Page, ref string) (*rod.Element, error) {
	m := refPath().FindStringSubmatch(ref)
	if m == nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "invalid ref %q: use a ref like e12 or f3e12 from `openclaw browser snapshot`", ref)
	}
	cur := pg
	for _, f := range strings.Split(m[1], "f")[1:] {
		el, err := findRef(cur, ref, "e"+f)
		if err != nil {
			return nil, err
		}
		if cur, err = enterFrame(el); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "ref %s: frame e%s: %v", ref, f, err)
		}
	}
	return findRef(cur, ref, m[2])
}

// findRef finds the one element of pg's document carrying local.
func findRef(pg *rod.Page, ref, local string) (*rod.Element, error) {
	res, err := pg.Evaluate(rod.Eval(findJS, local).ByObject())
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "ref %s: %v", ref, err)
	}
	if res.Subtype == proto.RuntimeRemoteObjectSubtypeNode {
		return pg.ElementFromObject(res)
	}
	n := res.Value.Int()
	if n == 0 && !pg.IsIframe() {
		// Not in the document nor its open shadow roots: a closed shadow
		// root, which only the DevTools protocol can see into.
		if el, err := findClosed(pg, local); err == nil && el != nil {
			return el, nil
		}
	}
	if n == 0 {
		return nil, tools.Errorf(tools.CodeNotFound, "Unknown ref %q: its element is gone (or the page navigated). Run a new snapshot and use a ref from that snapshot.", ref)
	}
	return nil, tools.Errorf(tools.CodeFailed, "ref %q matched %d elements. Run a new snapshot and use a ref from that snapshot.", ref, n)
}

// enterFrame returns a page for the document an iframe element shows.
func enterFrame(el *rod.Element) (*rod.Page, error) {
	node, err := el.Describe(1, false)
	if err != nil {
		return nil, err
	}
	if node.FrameID == "" {
		return nil, fmt.Errorf("a <%s> is not a frame", strings.ToLower(node.NodeName))
	}
	if node.ContentDocument != nil {
		return el.Frame()
	}
	return attachFrame(el.Page().GetContext(), el.Page(), node.FrameID)
}

// attachFrame attaches to an out-of-process frame: its own target, with
// the frame's id. Device emulation is for top-level pages only (a frame
// target refuses it), so the attach goes without rod's default device.
func attachFrame(ctx context.Context, pg *rod.Page, frame proto.PageFrameID) (*rod.Page, error) {
	fp, err := pg.Browser().Context(ctx).NoDefaultDevice().PageFromTarget(proto.TargetTargetID(frame))
	if err != nil {
		return nil, err
	}
	return fp.Context(ctx), nil
}

// findClosed looks for the one element carrying local in the page's DOM as
// the DevTools protocol sees it, closed shadow roots included (frame
// documents excluded: they number their own refs). It returns nil when
// there is not exactly one.
func findClosed(pg *rod.Page, local string) (*rod.Element, error) {
	depth := -1
	doc, err := proto.DOMGetDocument{Depth: &depth, Pierce: true}.Call(pg)
	if err != nil {
		return nil, err
	}
	var hits []proto.DOMBackendNodeID
	var walk func(n *proto.DOMNode)
	walk = func(n *proto.DOMNode) {
		for i := 0; i+1 < len(n.Attributes); i += 2 {
			if n.Attributes[i] == refAttr && n.Attributes[i+1] == local {
				hits = append(hits, n.BackendNodeID)
			}
		}
		for _, c := range n.ShadowRoots {
			walk(c)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc.Root)
	if len(hits) != 1 {
		return nil, nil
	}
	obj, err := proto.DOMResolveNode{BackendNodeID: hits[0]}.Call(pg)
	if err != nil {
		return nil, err
	}
	return pg.ElementFromObject(obj.Object)
}
