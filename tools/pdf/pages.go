package pdf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// maxPageRange bounds the pages one range (or a whole document) names.
const maxPageRange = 100000

// parsePages reads "1-5", "1,3,7-9" (1-based, spaces allowed) into sorted,
// distinct page numbers.
func parsePages(s string) ([]int, error) {
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 1 {
			return nil, fmt.Errorf("invalid pages %q: %q is not a page number (use 1-5 or 1,3,7-9)", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("invalid pages %q: %q is not a range (use 1-5 or 1,3,7-9)", s, part)
			}
		}
		if b-a > maxPageRange {
			return nil, fmt.Errorf("invalid pages %q: range %q is too large", s, part)
		}
		for p := a; p <= b; p++ {
			seen[p] = true
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("invalid pages %q: no page numbers (use 1-5 or 1,3,7-9)", s)
	}
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out, nil
}

// formatPages writes sorted page numbers back as ranges ("1-3,7").
func formatPages(ps []int) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j == i {
			fmt.Fprintf(&b, "%d", ps[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", ps[i], ps[j])
		}
		i = j + 1
	}
	return b.String()
}
