package mcpclient

import (
	"fmt"
	"regexp"
	"strings"
)

// Tool names given to models: "<server>__<tool>" from the characters
// providers accept, as the original projects them (agent-bundle-mcp-names):
// other characters become "-", a fragment not starting with a letter gets
// a "mcp-"/"tool-" prefix, the server part is cut to 30 characters and the
// whole to 64, and a name already taken (compared case-insensitively)
// gets "-2", "-3", ... on its tool part.
const (
	maxServerPart = 30
	maxToolName   = 64
)

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func safeFragment(raw, fallback string, max int) string {
	n := unsafeChars.ReplaceAllString(strings.TrimSpace(raw), "-")
	if n == "" {
		n = fallback
	}
	if c := n[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		n = fallback + "-" + n
	}
	if max > 0 && len(n) > max {
		n = n[:max]
	}
	return n
}

// SafeServerNames assigns each server its name part, in the order given
// (callers pass sorted names, so the assignment is stable).
func SafeServerNames(names []string) map[string]string {
	used := map[string]bool{}
	out := make(map[string]string, len(names))
	for _, name := range names {
		base := safeFragment(name, "mcp", maxServerPart)
		cand := base
		for n := 2; used[strings.ToLower(cand)]; n++ {
			suffix := fmt.Sprintf("-%d", n)
			cand = base[:max(1, min(len(base), maxServerPart-len(suffix)))] + suffix
		}
		used[strings.ToLower(cand)] = true
		out[name] = cand
	}
	return out
}

// ToolName builds the model-facing name of one server tool and reserves it
// in taken (lower-cased names).
func ToolName(safeServer, tool string, taken map[string]bool) string {
	clean := safeFragment(tool, "tool", 0)
	room := max(1, maxToolName-len(safeServer)-2)
	if len(clean) > room {
		clean = clean[:room]
	}
	cand := safeServer + "__" + clean
	for n := 2; taken[strings.ToLower(cand)]; n++ {
		suffix := fmt.Sprintf("-%d", n)
		cand = safeServer + "__" + clean[:max(1, min(len(clean), room-len(suffix)))] + suffix
	}
	taken[strings.ToLower(cand)] = true
	return cand
}
