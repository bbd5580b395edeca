package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a config path: a key or an array index.
type Segment struct {
	Key   string
	Index int
	IsIdx bool
}

// ParsePath parses "a.b[0].c" (and a["x.y"]) into segments.
func ParsePath(p string) ([]Segment, error) {
	var out []Segment
	i := 0
	for i < len(p) {
		switch p[i] {
		case '.':
			i++
			continue
		case '[':
			if i+1 < len(p) && p[i+1] == '"' {
				end := closingQuote(p, i+1)
				if end < 0 || end+1 >= len(p) || p[end+1] != ']' {
					return nil, fmt.Errorf("config path %q: unclosed [\"", p)
				}
				uq, err := strconv.Unquote(p[i+1 : end+1])
				if err != nil {
					return nil, fmt.Errorf("config path %q: bad quoted key: %w", p, err)
				}
				out = append(out, Segment{Key: uq})
				i = end + 2
				continue
			}
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("config path %q: unclosed [", p)
			}
			inner := p[i+1 : i+end]
			i += end + 1
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				out = append(out, Segment{Index: n, IsIdx: true})
				continue
			}
			return nil, fmt.Errorf("config path %q: bad index [%s]", p, inner)
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			out = append(out, Segment{Key: p[i:j]})
			i = j
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("config path is empty")
	}
	return out, nil
}

// closingQuote returns the index of the quote closing the one at start.
func closingQuote(p string, start int) int {
	for j := start + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// FormatPath renders segments in the form ParsePath reads: keys joined by
// dots, indexes as [n], keys that are not plain (dots, brackets, quotes,
// empty) as ["..."].
func FormatPath(segs []Segment) string {
	out := ""
	for _, s := range segs {
		if s.IsIdx {
			out = joinIndex(out, s.Index)
		} else {
			out = joinKey(out, s.Key)
		}
	}
	return out
}

func plainKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, ".[]\"")
}

// joinKey appends an object key to a dot path.
func joinKey(parent, key string) string {
	if !plainKey(key) {
		return parent + "[" + strconv.Quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// joinIndex appends an array index to a dot path.
func joinIndex(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

func getPath(doc any, segs []Segment) (any, bool) {
	cur := doc
	for _, s := range segs {
		if s.IsIdx {
			arr, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(arr) {
				return nil, false
			}
			cur = arr[s.Index]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[s.Key]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
