package canvas

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/nodes"
)

// nodeInfo is what node selection reads of a node.list entry.
type nodeInfo = nodes.Listed

// listNodes asks the gateway's node.list through the one door, as the
// caller (its scopes apply).
func listNodes(ctx context.Context, env *tools.Env) ([]nodeInfo, error) {
	return nodes.List(ctx, env)
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func label(n nodeInfo) string {
	switch {
	case n.DisplayName != "":
		return n.DisplayName
	case n.RemoteIP != "":
		return n.RemoteIP
	}
	return n.NodeID
}

func labels(list []nodeInfo) string {
	out := make([]string, 0, len(list))
	for _, n := range list {
		out = append(out, label(n))
	}
	return strings.Join(out, ", ")
}

// pickDefault chooses the node when none is named: among nodes with the
// canvas capability (a node that lists no caps counts), preferring the
// connected ones: the only one; else the only local Mac (a "mac-" id);
// else the one connected most recently.
func pickDefault(nodes []nodeInfo) (string, error) {
	var withCanvas []nodeInfo
	for _, n := range nodes {
		if n.Caps == nil || slices.Contains(n.Caps, "canvas") {
			withCanvas = append(withCanvas, n)
		}
	}
	var connected []nodeInfo
	for _, n := range withCanvas {
		if n.Connected {
			connected = append(connected, n)
		}
	}
	cands := withCanvas
	if len(connected) > 0 {
		cands = connected
	}
	switch len(cands) {
	case 0:
		msg := "node required: no node with the canvas capability"
		if len(nodes) > 0 {
			msg += fmt.Sprintf(" (known: %s)", labels(nodes))
		}
		return "", tools.Errorf(tools.CodeInvalidParams, "%s", msg)
	case 1:
		return cands[0].NodeID, nil
	}
	var macs []nodeInfo
	for _, n := range cands {
		if strings.HasPrefix(n.NodeID, "mac-") && strings.HasPrefix(strings.ToLower(n.Platform), "mac") {
			macs = append(macs, n)
		}
	}
	if len(macs) == 1 {
		return macs[0].NodeID, nil
	}
	best := cands[0]
	for _, n := range cands[1:] {
		if recency(n) > recency(best) {
			best = n
		}
	}
	return best.NodeID, nil
}

func recency(n nodeInfo) int64 {
	if n.ConnectedAtMs > 0 {
		return n.ConnectedAtMs
	}
	return n.LastSeenAtMs
}

// resolveNode turns the node param into a node id (node.list once).
func resolveNode(ctx context.Context, env *tools.Env, query string) (string, error) {
	list, err := listNodes(ctx, env)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(query) == "" {
		return pickDefault(list)
	}
	n, err := nodes.Match(list, query)
	return n.NodeID, err
}
