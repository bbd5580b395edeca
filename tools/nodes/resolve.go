package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// Listed is what choosing a node reads of a node.list entry.
type Listed struct {
	NodeID        string   `json:"nodeId"`
	DisplayName   string   `json:"displayName"`
	RemoteIP      string   `json:"remoteIp"`
	Platform      string   `json:"platform"`
	Caps          []string `json:"caps"`
	Commands      []string `json:"commands"`
	Connected     bool     `json:"connected"`
	ConnectedAtMs int64    `json:"connectedAtMs"`
	LastSeenAtMs  int64    `json:"lastSeenAtMs"`
}

// Has reports whether the node's effective commands include cmd.
func (n Listed) Has(cmd string) bool {
	for _, c := range n.Commands {
		if c == cmd {
			return true
		}
	}
	return false
}

// List is node.list through the one door, as the caller (its scopes apply).
func List(ctx context.Context, env *tools.Env) ([]Listed, error) {
	raw, err := tools.Invoke(ctx, env, tools.Call{Method: "node.list", Args: json.RawMessage(`{}`)})
	if err != nil {
		return nil, err
	}
	var res struct {
		Nodes []Listed `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "node.list answered something that is not a node list: %v", err)
	}
	return res.Nodes, nil
}

// Resolve turns a --node value into the node it names (node.list once):
// see Match. Every family that targets a node (nodes, canvas, exec
// host=node, browser target=node) resolves through it.
func Resolve(ctx context.Context, env *tools.Env, query string) (Listed, error) {
	if strings.TrimSpace(query) == "" {
		return Listed{}, errNodeRequired
	}
	nodes, err := List(ctx, env)
	if err != nil {
		return Listed{}, err
	}
	return Match(nodes, query)
}

var errNodeRequired = tools.Errorf(tools.CodeInvalidParams, "node required (its id, display name, IP or an id prefix of 6+ characters)")

// NameKey folds a display name for matching: lower case, each run of
// characters other than a-z and 0-9 one "-", none at the ends, so
// "Build Box", "build box" and "build-box" are one name.
func NameKey(s string) string {
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

// minIDPrefix is the shortest id prefix that names a node (the original's).
const minIDPrefix = 6

// Match finds the node a query names, as the original's --node: an exact
// id, the remote IP, the display name with case and punctuation folded
// (NameKey), or an id prefix of 6+ characters; when none of these match,
// a unique prefix of the folded display name. An exact id beats any other
// match; among several matches a single connected one is meant (a node
// that came back under a new id keeps its old offline entry); otherwise
// the query is ambiguous (exit 2) or unknown (exit 1), and the error
// names the candidates.
func Match(nodes []Listed, query string) (Listed, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return Listed{}, errNodeRequired
	}
	qk, lq := NameKey(q), strings.ToLower(q)
	var hits []Listed
	for _, n := range nodes {
		if n.NodeID == q {
			return n, nil
		}
		if (n.RemoteIP != "" && n.RemoteIP == q) || (qk != "" && n.DisplayName != "" && NameKey(n.DisplayName) == qk) ||
			(len(q) >= minIDPrefix && strings.HasPrefix(strings.ToLower(n.NodeID), lq)) {
			hits = append(hits, n)
		}
	}
	if len(hits) == 0 && qk != "" {
		for _, n := range nodes {
			if n.DisplayName != "" && strings.HasPrefix(NameKey(n.DisplayName), qk) {
				hits = append(hits, n)
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		if len(nodes) == 0 {
			return Listed{}, tools.Errorf(tools.CodeNotFound, "unknown node %q: no nodes are known (start one with `openclaw node run`)", q)
		}
		known := make([]string, 0, len(nodes))
		for _, n := range nodes {
			known = append(known, nodeLabel(n))
		}
		return Listed{}, tools.Errorf(tools.CodeNotFound, "unknown node %q (known: %s)", q, strings.Join(known, ", "))
	}
	var live []Listed
	for _, n := range hits {
		if n.Connected {
			live = append(live, n)
		}
	}
	if len(live) == 1 {
		return live[0], nil
	}
	if len(live) > 1 {
		hits = live
	}
	names := make([]string, 0, len(hits))
	for _, n := range hits {
		names = append(names, fmt.Sprintf("%s (%s)", nodeLabel(n), short(n.NodeID)))
	}
	return Listed{}, tools.Errorf(tools.CodeInvalidParams, "node %q is ambiguous: it names %s; give the id or more of it", q, strings.Join(names, ", "))
}

func nodeLabel(n Listed) string {
	return first(n.DisplayName, n.RemoteIP, short(n.NodeID))
}
