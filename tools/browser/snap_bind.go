package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// localRef is a ref as stored on an element: eN, unique in its document.
var localRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^e[1-9][0-9]{0,8}$`) }) // on first use, not in every process's init

// bindJS hands out refs for the elements passed after obs, in one call, so
// the page's single JavaScript thread makes the whole step atomic: two
// snapshots racing (two CLI processes) are serialised here. obs[i] is the
// ref the caller saw on els[i] ("" for none, or a duplicate it wants
// replaced); an element whose ref changed since then was bound by another
// snapshot meanwhile and keeps that ref.
const bindJS = `function(obs, ...els) {
	const R = "` + refAttr + `", N = "` + nextAttr + `";
	const root = this.ownerDocument.documentElement;
	let next = parseInt(root.getAttribute(N), 10) || 1;
	const out = [];
	for (let i = 0; i < els.length; i++) {
		const el = els[i], cur = el.getAttribute(R);
		if (cur && cur !== obs[i]) { out.push(cur); continue; }
		const r = "e" + next++;
		el.setAttribute(R, r);
		out.push(r);
	}
	root.setAttribute(N, String(next));
	return out;
}`

// snapGroup holds the remote objects one binding step resolves.
const snapGroup = "openclaw-snapshot"

// bindRefs gives every bindable node of doc its ref (doc.prefix + eN): the
// one its element already carries, else a new one from bindJS. It returns
// how many refs were new.
func bindRefs(ctx context.Context, doc *frameDoc, nodes []*node) (int, error) {
	seen := map[string]bool{}
	var pending []*node
	var obs []string
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			if n.bindable && n.back != 0 {
				r := doc.idx[n.back].attrs[refAttr]
				if localRef().MatchString(r) && !seen[r] {
					seen[r] = true
					n.Ref = doc.prefix + r
				} else {
					// A new element, or a clone carrying another element's ref.
					pending = append(pending, n)
					obs = append(obs, r)
				}
			}
			walk(n.Children)
		}
	}
	walk(nodes)
	if len(pending) == 0 {
		return 0, nil
	}
	objs, err := resolveNodes(ctx, doc, pending)
	if err != nil {
		return 0, err
	}
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: snapGroup}.Call(doc.pg) }()
	// Nodes that vanished since the DOM was read get no ref.
	var live []*node
	var liveObs []string
	args := []*proto.RuntimeCallArgument{nil}
	for i, o := range objs {
		if o == "" {
			continue
		}
		live = append(live, pending[i])
		liveObs = append(liveObs, obs[i])
		args = append(args, &proto.RuntimeCallArgument{ObjectID: o})
	}
	if len(live) == 0 {
		return 0, nil
	}
	obsJSON, _ := json.Marshal(liveObs)
	args[0] = &proto.RuntimeCallArgument{}
	if err := json.Unmarshal(obsJSON, &args[0].Value); err != nil {
		return 0, err
	}
	res, err := proto.RuntimeCallFunctionOn{ObjectID: args[1].ObjectID, FunctionDeclaration: bindJS,
		Arguments: args, ReturnByValue: true}.Call(doc.pg)
	if err != nil {
		return 0, err
	}
	if res.ExceptionDetails != nil {
		return 0, fmt.Errorf("page: %s", res.ExceptionDetails.Text)
	}
	var got []string
	if err := json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &got); err != nil || len(got) != len(live) {
		return 0, fmt.Errorf("unexpected answer %s", res.Result.Value.JSON("", ""))
	}
	fresh := 0
	for i, n := range live {
		if localRef().MatchString(got[i]) {
			n.Ref = doc.prefix + got[i]
			if got[i] != liveObs[i] {
				fresh++
			}
		}
	}
	return fresh, nil
}

// resolveNodes turns backend node ids into remote objects, a few calls in
// flight at once (a first snapshot of a big page binds hundreds). A node
// that is gone yields "".
func resolveNodes(ctx context.Context, doc *frameDoc, ns []*node) ([]proto.RuntimeRemoteObjectID, error) {
	out := make([]proto.RuntimeRemoteObjectID, len(ns))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(8, len(ns)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				res, err := proto.DOMResolveNode{BackendNodeID: ns[i].back, ObjectGroup: snapGroup}.Call(doc.pg)
				if err == nil && res.Object != nil {
					out[i] = res.Object.ObjectID
				}
			}
		}()
	}
	for i := range ns {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return out, ctx.Err()
}
