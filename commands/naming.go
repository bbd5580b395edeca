package commands

import (
	"strings"
	"unicode"
)

// families are the prefixes of agent tool names that become a command group:
// web_fetch → `openclaw web fetch`, sessions_list → `openclaw sessions list`.
// session_status joins the sessions family.
var families = map[string]string{
	"web":      "web",
	"sessions": "sessions",
	"session":  "sessions",
	"memory":   "memory",
	"agents":   "agents",
}

// commandPath maps an action to its CLI words. Single-action tools keep their
// name in kebab case (apply_patch → apply-patch) unless they belong to a
// family; multi-action tools take the action as the verb, and an action
// named with underscores becomes nested words (camera_snap → `nodes camera
// snap`, as the original's CLI spells it).
func commandPath(tool, verb string, multi bool) []string {
	if multi {
		return append([]string{kebab(tool)}, strings.Split(verb, "_")...)
	}
	if i := strings.IndexByte(tool, '_'); i > 0 {
		if fam, ok := families[tool[:i]]; ok {
			return []string{fam, kebab(tool[i+1:])}
		}
	}
	return []string{kebab(tool)}
}

// kebab turns snake_case and camelCase into kebab-case.
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_':
			b.WriteByte('-')
		case unicode.IsUpper(r):
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
