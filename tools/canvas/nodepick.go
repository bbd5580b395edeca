package canvas

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// nodeInfo is what node selection reads of a node.list entry.
type nodeInfo struct {
	NodeID        string   `json:"nodeId"`
	DisplayName   string   `json:"displayName"`
	RemoteIP      string   `json:"remoteIp"`
	Platform      string   `json:"platform"`
	Caps          []string `json:"caps"`
	Connected     bool     `json:"connected"`
	ConnectedAtMs int64    `json:"connectedAtMs"`
	LastSeenAtMs  int64    `json:"lastSeenAtMs"`
}

// listNodes asks the gateway's node.list through the one door, as the
// caller (its scopes apply).
func listNodes(ctx context.Context, env *tools.Env) ([]nodeInfo, error) {
	raw, err := tools.Invoke(ctx, env, tools.Call{Method: "node.list", Args: json.RawMessage(`{}`)})
	if err != nil {
		return nil, err
	}
	var res struct {
		Nodes []nodeInfo `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "node.list answered %s: %v", clip(raw), err)
	}
	return res.Nodes, nil
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// nodeKey folds a display name for matching, as the original: lower case,
// every run of other characters than a-z and 0-9 one "-", none at the
// ends ("Build Box" ~ "build-box").
func nodeKey(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
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

func labels(nodes []nodeInfo) string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, label(n))
	}
	return strings.Join(out, ", ")
}

// matchNode resolves --node as the original does: an exact id, the remote
// IP, the display name (case and punctuation folded) or an id prefix of at
// least 6 characters. Several matches: the one connected, if only one is.
func matchNode(nodes []nodeInfo, query string) (string, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return "", tools.Errorf(tools.CodeInvalidParams, "node required")
	}
	qk := nodeKey(q)
	var matches []nodeInfo
	for _, n := range nodes {
		if n.NodeID == q || (n.RemoteIP != "" && n.RemoteIP == q) ||
			(n.DisplayName != "" && nodeKey(n.DisplayName) == qk) ||
			(len(q) >= 6 && strings.HasPrefix(n.NodeID, q)) {
			matches = append(matches, n)
		}
	}
	// An exact id beats any other kind of match.
	for _, n := range matches {
		if n.NodeID == q {
			return n.NodeID, nil
		}
	}
	switch len(matches) {
	case 1:
		return matches[0].NodeID, nil
	case 0:
		msg := "unknown node: " + q
		if len(nodes) > 0 {
			msg += " (known: " + labels(nodes) + ")"
		}
		return "", tools.Errorf(tools.CodeNotFound, "%s", msg)
	}
	var connected []nodeInfo
	for _, n := range matches {
		if n.Connected {
			connected = append(connected, n)
		}
	}
	if len(connected) == 1 {
		return connected[0].NodeID, nil
	}
	if len(connected) > 1 {
		matches = connected
	}
	return "", tools.Errorf(tools.CodeInvalidParams, "ambiguous node: %s (matches: %s)", q, labels(matches))
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
	nodes, err := listNodes(ctx, env)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(query) == "" {
		return pickDefault(nodes)
	}
	return matchNode(nodes, query)
}
