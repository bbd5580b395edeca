package policy

import (
	"slices"
	"strings"
)

// Policy is one allow/deny layer. Deny always wins; an empty allow-list
// allows everything not denied. AlsoAllow is additive (§5.8): unioned into
// Allow, or "everything plus these" when Allow is empty, so it never creates
// a restrictive list on its own.
type Policy struct {
	Allow     []string `json:"allow,omitempty"`
	AlsoAllow []string `json:"alsoAllow,omitempty"`
	Deny      []string `json:"deny,omitempty"`
}

// effectiveAllow folds AlsoAllow into Allow (§5.8).
func (p Policy) effectiveAllow() []string {
	switch {
	case len(p.AlsoAllow) == 0:
		return p.Allow
	case len(p.Allow) == 0:
		return dedupe(append([]string{"*"}, p.AlsoAllow...))
	default:
		return dedupe(append(slices.Clone(p.Allow), p.AlsoAllow...))
	}
}

// effective returns the policy with AlsoAllow folded in and reports whether
// it says anything at all (a nil *Policy says nothing).
func (p *Policy) effective() (Policy, bool) {
	if p == nil {
		return Policy{}, false
	}
	allow := p.effectiveAllow()
	if allow == nil && p.Deny == nil {
		return Policy{}, false
	}
	return Policy{Allow: allow, Deny: p.Deny}, true
}

// Matches reports whether a single policy admits tool (§5.4): deny wins,
// an empty allow-list admits all, `*` globs, and `apply_patch` is implied by
// an allow-list that admits `exec` (Classic).
func Matches(p Policy, tool string) bool {
	eff, ok := (&p).effective()
	if !ok {
		return true
	}
	return compilePolicy(eff, nil).admits(Normalize(tool))
}

// patterns is a compiled entry list: a catch-all flag, exact names and
// globs (split on `*`). Globs are matched directly instead of via regexp, so
// every other character, regex metacharacters included, is literal.
type patterns struct {
	all   bool
	exact map[string]bool
	globs [][]string
}

func compilePatterns(entries []string) patterns {
	var ps patterns
	for _, e := range ExpandGroups(entries) {
		switch {
		case e == "*":
			ps.all = true
		case strings.Contains(e, "*"):
			ps.globs = append(ps.globs, strings.Split(e, "*"))
		default:
			if ps.exact == nil {
				ps.exact = make(map[string]bool)
			}
			ps.exact[e] = true
		}
	}
	return ps
}

func (ps patterns) empty() bool { return !ps.all && len(ps.exact) == 0 && len(ps.globs) == 0 }

func (ps patterns) match(name string) bool {
	if ps.all || ps.exact[name] {
		return true
	}
	for _, g := range ps.globs {
		if globMatch(g, name) {
			return true
		}
	}
	return false
}

// globMatch matches s against a pattern already split on `*` (so it has at
// least two parts): the first part is a prefix, the last a suffix, the
// middle parts must appear in order. Leftmost matching of the middle parts is
// sufficient for `*`-only globs.
func globMatch(parts []string, s string) bool {
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// matcher is a compiled Policy.
type matcher struct{ allow, deny patterns }

// compilePolicy expands plugin groups (when plugins is non-nil) and core
// groups, then compiles both lists.
func compilePolicy(p Policy, plugins *pluginIndex) matcher {
	return matcher{
		allow: compilePatterns(plugins.expand(p.Allow)),
		deny:  compilePatterns(plugins.expand(p.Deny)),
	}
}

func (m matcher) denies(name string) bool { return m.deny.match(name) }

// allows ignores deny; callers check denies first.
func (m matcher) allows(name string) bool {
	if m.allow.empty() || m.allow.match(name) {
		return true
	}
	// Classic: whoever may run exec may patch files too.
	return name == "apply_patch" && m.allow.match("exec")
}

func (m matcher) admits(name string) bool { return !m.denies(name) && m.allows(name) }

// dedupe drops duplicates, keeping first-seen order.
func dedupe(list []string) []string {
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
