package config

import (
	"sort"
	"strconv"
	"strings"
)

// schemaNodeAt walks the schema along a concrete config path ("a.b[0].c",
// a["x.y"]). It reports the node and whether every segment is declared
// (a map's additionalProperties schema counts as declaring any key).
func schemaNodeAt(path string) (map[string]any, bool) {
	root, err := schemaDoc()
	if err != nil {
		return nil, false
	}
	segs, err := ParsePath(path)
	if err != nil || len(segs) == 0 {
		return nil, false
	}
	cur := root
	for _, s := range segs {
		key := s.Key
		if s.IsIdx {
			key = "*"
		}
		next := lookupChild(root, cur, key)
		if next == nil {
			return nil, false
		}
		cur = next
	}
	return resolveRef(root, cur), true
}

// SchemaDefault returns the schema's default for a config path, if any:
// what the runtime uses while the path is unset.
func SchemaDefault(path string) (any, bool) {
	node, ok := schemaNodeAt(path)
	if !ok {
		return nil, false
	}
	v, ok := node["default"]
	return v, ok
}

// KnownPath reports whether the schema declares path. Unknown keys are
// what validate warns about ("Unrecognized key").
func KnownPath(path string) bool {
	_, ok := schemaNodeAt(path)
	return ok
}

// SuggestPath proposes the declared path closest to an unknown one: the
// first unknown segment is replaced by the nearest sibling key (edit
// distance ≤ 2, or a prefix either way), the rest kept. "" when nothing is
// close.
func SuggestPath(path string) string {
	root, err := schemaDoc()
	if err != nil {
		return ""
	}
	segs, err := ParsePath(path)
	if err != nil {
		return ""
	}
	cur := root
	var known []string
	for i, s := range segs {
		key := s.Key
		if s.IsIdx {
			key = "*"
		}
		if next := lookupChild(root, cur, key); next != nil {
			known = append(known, segText(s, i == 0))
			cur = next
			continue
		}
		best, bestD := "", 3
		for _, c := range declaredKeys(root, cur) {
			d := editDistance(strings.ToLower(key), strings.ToLower(c))
			if strings.HasPrefix(c, key) || strings.HasPrefix(key, c) {
				d = min(d, 2)
			}
			if len(key) <= 3 && d > 1 {
				continue
			}
			if d < bestD || (d == bestD && c < best) {
				best, bestD = c, d
			}
		}
		if best == "" {
			return ""
		}
		out := strings.Join(known, "")
		if out != "" {
			out += "."
		}
		out += best
		for _, r := range segs[i+1:] {
			out += segText(r, false)
		}
		return out
	}
	return ""
}

func segText(s Segment, first bool) string {
	switch {
	case s.IsIdx:
		return "[" + strconv.Itoa(s.Index) + "]"
	case first:
		return s.Key
	default:
		return "." + s.Key
	}
}

// declaredKeys lists the declared property names below node.
func declaredKeys(root, node map[string]any) []string {
	var out []string
	for _, c := range lookupChildren(root, resolveRef(root, node), "") {
		if k, _ := c["key"].(string); k != "*" && k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
