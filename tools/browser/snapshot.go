package browser

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// Refs live in the page itself: each referenced element carries the
// attribute refAttr="eN", and its document's root element carries the next
// free number in nextAttr. So a ref stays bound to its element for as long
// as the element exists, whichever process (CLI call or gateway) took the
// snapshot, and a new element never reuses an old element's number. A
// navigation starts a new document and so new refs. Numbers are handed out
// by the snapshot script inside the page, in the same evaluation that
// builds the tree, so two snapshots racing never give one number to two
// elements (the page runs one script at a time).
const (
	refAttr  = "data-openclaw-ref"
	nextAttr = "data-openclaw-ref-next"
)

// snapshotJS computes the whole ai snapshot of a document in the page:
// see the file. It is one function expression.
//
//go:embed snapshot.js
var snapshotJS string

var snapshotFn = sync.OnceValue(func() string {
	return strings.TrimSpace(snapshotJS[strings.Index(snapshotJS, "(function"):])
})

// snapshotKey names the property of the page's global object that holds
// the script once a snapshot installed it (non-enumerable, read-only):
// later snapshots of the document call it instead of compiling the script
// again. The name carries the script's hash, so another build installs
// its own.
var snapshotKey = sync.OnceValue(func() string {
	h := sha256.Sum256([]byte(snapshotFn()))
	return "__openclawSnapshot_" + hex.EncodeToString(h[:6])
})

// snapOpts are what the snapshot script takes.
type snapOpts struct {
	Prefix      string `json:"prefix,omitempty"`     // ref prefix of the document ("f3" for the frame iframe e3 shows)
	FrameDepth  int    `json:"frameDepth,omitempty"` // frame nesting of the document
	Child       bool   `json:"child,omitempty"`      // a frame's document, spliced into its parent's text
	Selector    string `json:"selector,omitempty"`
	Frame       string `json:"frame,omitempty"`
	Interactive bool   `json:"interactive,omitempty"`
	Compact     bool   `json:"compact,omitempty"`
	Depth       *int   `json:"depth"`
	URLs        bool   `json:"urls,omitempty"`
	MaxChars    int    `json:"maxChars,omitempty"` // cut in the page when nothing is left to fill in
	ClosedDone  bool   `json:"closedDone,omitempty"`
}

// snapFrame is a frame the page's script could not read (another origin):
// its placeholder line, at its tree level, is filled by the frame's own
// evaluation.
type snapFrame struct {
	Ref   string `json:"ref"`
	Level int    `json:"level"`
}

// snapResult is the script's answer.
type snapResult struct {
	Missing    bool         `json:"missing"` // the document has no installed script yet
	URL        string       `json:"url"`     // the document's
	Text       string       `json:"text"`
	Frames     []snapFrame  `json:"frames"`
	Links      [][2]*string `json:"links"` // [text, href], or [null, ref] where a frame's links go
	Cut        bool         `json:"cut"`   // the depth cut dropped lines
	Truncated  bool         `json:"truncated"`
	ClosedHint bool         `json:"closedHint"` // an element looks like it hosts a closed shadow root
	Error      string       `json:"error"`
	Tag        string       `json:"tag"`
}

// placeholder starts the line a frame's text replaces.
const placeholder = "\x00"

// maxFrameDepth bounds iframe nesting followed by one snapshot.
const maxFrameDepth = 5

// maxTreeDepth is the hard cap on printed depth; deeper lines are cut and
// the snapshot says so.
const maxTreeDepth = 100

// deepMarker ends a snapshot cut at maxTreeDepth.
const deepMarker = "[...TRUNCATED - accessibility tree too deep]"

// snapTarget is where a document's script runs: a page session's main
// world, or an isolated world of one of its frames (a cross-origin frame
// in the same process).
type snapTarget struct {
	pg    *rod.Page
	ctxID proto.RuntimeExecutionContextID
	frame proto.PageFrameID // the isolated world's frame ("" = the session's main frame)
}

// runSnapshot evaluates the script in t. When the script suspects a closed
// shadow root (which a script cannot see), the DevTools protocol finds
// them and the script runs again with them.
func runSnapshot(ctx context.Context, t snapTarget, o snapOpts) (*snapResult, error) {
	res, err := evalSnapshot(ctx, t, o, nil)
	if err != nil || !res.ClosedHint {
		return res, err
	}
	pairs, err := closedRoots(ctx, t)
	if err != nil || len(pairs) == 0 {
		return res, nil // nothing closed after all: the first answer stands
	}
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: snapGroup}.Call(t.pg) }()
	o.ClosedDone = true
	return evalSnapshot(ctx, t, o, pairs)
}

// snapGroup holds the remote objects of closed shadow roots and hosts.
const snapGroup = "openclaw-snapshot"

func evalSnapshot(ctx context.Context, t snapTarget, o snapOpts, pairs []proto.RuntimeRemoteObjectID) (*snapResult, error) {
	optsJSON, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var ro *proto.RuntimeRemoteObject
	var exc *proto.RuntimeExceptionDetails
	pg := t.pg.Context(ctx)
	if len(pairs) == 0 {
		key := quote(snapshotKey())
		// The installed script when there is one, else install it (or, when
		// the page holds the name, run it as it is).
		for _, expr := range []string{
			`(function(k,o){const f=globalThis[k];return typeof f==="function"?f(o):{missing:true}})(` + key + `,` + string(optsJSON) + `)`,
			`(function(k,f,o){try{Object.defineProperty(globalThis,k,{value:f})}catch(e){}return f(o)})(` + key + `,` + snapshotFn() + `,` + string(optsJSON) + `)`,
		} {
			r, err := proto.RuntimeEvaluate{Expression: expr, ReturnByValue: true, ContextID: t.ctxID}.Call(pg)
			if err != nil {
				return nil, err
			}
			ro, exc = r.Result, r.ExceptionDetails
			if exc != nil || !gjson.Get(ro.Value.JSON("", ""), "missing").Bool() {
				break
			}
		}
	} else {
		args := []*proto.RuntimeCallArgument{{}}
		if err := json.Unmarshal(optsJSON, &args[0].Value); err != nil {
			return nil, err
		}
		for _, p := range pairs {
			args = append(args, &proto.RuntimeCallArgument{ObjectID: p})
		}
		r, err := proto.RuntimeCallFunctionOn{ObjectID: pairs[0], FunctionDeclaration: snapshotFn(), Arguments: args,
			ReturnByValue: true}.Call(pg)
		if err != nil {
			return nil, err
		}
		ro, exc = r.Result, r.ExceptionDetails
	}
	if exc != nil {
		msg := exc.Text
		if exc.Exception != nil && exc.Exception.Description != "" {
			msg = exc.Exception.Description
		}
		return nil, fmt.Errorf("page: %s", msg)
	}
	var res snapResult
	if err := json.Unmarshal([]byte(ro.Value.JSON("", "")), &res); err != nil {
		return nil, fmt.Errorf("unexpected answer: %w", err)
	}
	return &res, nil
}

// closedRoots finds the closed shadow roots of t's document (and those
// nested in them) and returns host, root, host, root, ... as objects of
// t's world.
func closedRoots(ctx context.Context, t snapTarget) ([]proto.RuntimeRemoteObjectID, error) {
	pg := t.pg.Context(ctx)
	depth := -1
	doc, err := proto.DOMGetDocument{Depth: &depth, Pierce: true}.Call(pg)
	if err != nil {
		return nil, err
	}
	var ids []proto.DOMBackendNodeID
	var walk func(n *proto.DOMNode, in bool)
	walk = func(n *proto.DOMNode, in bool) {
		for _, sr := range n.ShadowRoots {
			if in && sr.ShadowRootType == proto.DOMShadowRootTypeClosed {
				ids = append(ids, n.BackendNodeID, sr.BackendNodeID)
			}
			walk(sr, in)
		}
		for _, c := range n.Children {
			walk(c, in)
		}
		// Another document: only the isolated world's frame is entered.
		if n.ContentDocument != nil && !in && t.frame != "" && n.FrameID == t.frame {
			walk(n.ContentDocument, true)
		}
	}
	walk(doc.Root, t.frame == "")
	out := make([]proto.RuntimeRemoteObjectID, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := proto.DOMResolveNode{BackendNodeID: id, ObjectGroup: snapGroup, ExecutionContextID: t.ctxID}.Call(pg)
			if err != nil || r.Object == nil {
				errs[i] = fmt.Errorf("resolve node: %v", err)
				return
			}
			out[i] = r.Object.ObjectID
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return out, nil
}

// capture is a rendered snapshot before the caller's diff and cut.
type capture struct {
	url       string
	text      string
	truncated bool // cut at maxChars in the page already
}

// takeSnapshot runs the snapshot script in the page's main frame, then in
// each frame it could not read (another origin: in-process ones through an
// isolated world, out-of-process ones through their own target), splicing
// each frame's text in at its placeholder.
func takeSnapshot(ctx context.Context, pg *rod.Page, o snapOpts) (*capture, error) {
	pg = pg.Context(ctx)
	res, err := runSnapshot(ctx, snapTarget{pg: pg}, o)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: %v", err)
	}
	what := "selector"
	if o.Frame != "" {
		what = "frame"
	}
	switch res.Error {
	case "":
	case "invalid":
		return nil, tools.Errorf(tools.CodeInvalidParams, "%s %q is not a valid CSS selector", what, firstNonEmpty(o.Selector, o.Frame))
	case "nomatch":
		return nil, tools.Errorf(tools.CodeNotFound, "%s %q matches no element", what, firstNonEmpty(o.Selector, o.Frame))
	case "notframe":
		return nil, tools.Errorf(tools.CodeInvalidParams, "frame %q matches a <%s>, not an iframe", o.Frame, res.Tag)
	default:
		return nil, tools.Errorf(tools.CodeFailed, "snapshot: %s", res.Error)
	}
	if len(res.Frames) == 0 {
		return &capture{url: res.URL, text: res.Text, truncated: res.Truncated}, nil
	}
	max := maxTreeDepth
	if o.Depth != nil {
		max = min(*o.Depth, maxTreeDepth)
	}
	text, links, cut := fillFrames(ctx, pg, o, res, max)
	if text == "" {
		text = "(empty)"
		if o.Interactive {
			text = "(no interactive elements)"
		}
	}
	if cut && (o.Depth == nil || *o.Depth > maxTreeDepth) {
		text += "\n" + deepMarker
	}
	if o.URLs && len(links) > 0 {
		var b strings.Builder
		b.WriteString("\n\nLinks:")
		for i, l := range links {
			b.WriteString("\n" + strconv.Itoa(i+1) + ". " + l[0] + " -> " + l[1])
		}
		text += b.String()
	}
	return &capture{url: res.URL, text: text}, nil
}

// fillFrames replaces the placeholders of res with the frames' texts (and
// their links), recursively; it returns the text, the links, and whether
// a depth cut dropped lines anywhere.
func fillFrames(ctx context.Context, pg *rod.Page, o snapOpts, res *snapResult, max int) (string, [][2]string, bool) {
	type filled struct {
		text  string
		links [][2]string
		cut   bool
	}
	kids := make([]filled, len(res.Frames))
	var wg sync.WaitGroup
	for i, f := range res.Frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			co := snapOpts{Prefix: framePrefix(f.Ref), FrameDepth: strings.Count(f.Ref, "f") + 1, Child: true,
				Interactive: o.Interactive, Compact: o.Compact, URLs: o.URLs}
			d := max - f.Level
			co.Depth = &d
			var cres *snapResult
			var err error
			if co.FrameDepth <= maxFrameDepth {
				cres, err = frameSnapshot(ctx, pg, f.Ref, co)
			} else {
				cres = &snapResult{}
			}
			if err != nil {
				kids[i] = filled{text: "- text: " + yamlValue("(frame not readable: "+err.Error()+")")}
				return
			}
			t, l, c := fillFrames(ctx, pg, co, cres, max-f.Level)
			kids[i] = filled{t, l, c || cres.Cut}
		}()
	}
	wg.Wait()
	byRef := map[string]*filled{}
	for i, f := range res.Frames {
		byRef[f.Ref] = &kids[i]
	}
	cut := res.Cut
	var out []string
	for _, l := range strings.Split(res.Text, "\n") {
		if !strings.HasPrefix(l, placeholder) {
			out = append(out, l)
			continue
		}
		ref, lv, _ := strings.Cut(l[1:], placeholder)
		k := byRef[ref]
		if k == nil {
			continue
		}
		cut = cut || k.cut
		level, _ := strconv.Atoi(lv)
		pad := ""
		if !o.Interactive {
			pad = strings.Repeat("  ", level)
		}
		if k.text == "" {
			if !o.Interactive && len(out) > 0 { // the iframe's line has no children after all
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], ":")
			}
			continue
		}
		for _, cl := range strings.Split(k.text, "\n") {
			out = append(out, pad+cl)
		}
	}
	var links [][2]string
	for _, l := range res.Links {
		if l[0] == nil {
			if l[1] != nil {
				if k := byRef[*l[1]]; k != nil {
					links = append(links, k.links...)
				}
			}
			continue
		}
		href := ""
		if l[1] != nil {
			href = *l[1]
		}
		links = append(links, [2]string{*l[0], href})
	}
	return strings.Join(out, "\n"), links, cut
}

// framePrefix is the ref prefix of the document an iframe shows: f3 for
// iframe e3, f3f5 for iframe f3e5.
func framePrefix(ref string) string {
	i := strings.LastIndexByte(ref, 'e')
	return ref[:i] + "f" + ref[i+1:]
}

// frameSnapshot runs the script in the document the iframe ref shows.
func frameSnapshot(ctx context.Context, pg *rod.Page, ref string, o snapOpts) (*snapResult, error) {
	el, err := resolveRef(pg, ref)
	if err != nil {
		return nil, err
	}
	node, err := el.Describe(1, false)
	if err != nil {
		return nil, err
	}
	if node.FrameID == "" {
		return &snapResult{}, nil
	}
	t := snapTarget{pg: el.Page().Context(ctx)}
	if node.ContentDocument != nil { // in this process: an isolated world of the frame
		w, err := proto.PageCreateIsolatedWorld{FrameID: node.FrameID, WorldName: "openclaw-snapshot"}.Call(t.pg)
		if err != nil {
			return nil, fmt.Errorf("frame world: %w", err)
		}
		t.ctxID, t.frame = w.ExecutionContextID, node.FrameID
	} else {
		fp, err := attachFrame(ctx, el.Page(), node.FrameID)
		if err != nil {
			return nil, fmt.Errorf("attach: %w", err)
		}
		t.pg = fp
	}
	return runSnapshot(ctx, t, o)
}

// ariaSnapshot renders the raw accessibility tree (format aria): every
// node, depth-first, with axN refs, stopping at limit nodes.
func ariaSnapshot(ctx context.Context, pg *rod.Page, limit int) (string, error) {
	ax, err := proto.AccessibilityGetFullAXTree{}.Call(pg.Context(ctx))
	if err != nil {
		return "", tools.Errorf(tools.CodeFailed, "snapshot: accessibility tree: %v", err)
	}
	if len(ax.Nodes) == 0 {
		return "", nil
	}
	byID := make(map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, len(ax.Nodes))
	for _, n := range ax.Nodes {
		byID[n.NodeID] = n
	}
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
	walk(ax.Nodes[0], 0)
	return strings.Join(out, "\n"), nil
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
