package skills

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Prompt limits, the original's defaults: skills.limits.maxSkillsInPrompt
// and skills.limits.maxSkillsPromptChars override them.
const (
	DefaultMaxSkillsInPrompt    = 150
	DefaultMaxSkillsPromptChars = 18000
	maxDescriptionChars         = 220
	minDescriptionChars         = 4
)

// PromptSection is the system prompt's skills section for one turn: the
// skills the agent may use (eligible, allowed for the agent, not hidden
// from the model), as the original lists them, within the prompt
// limits; "" when there are none. The skills are loaded anew (see Load).
func PromptSection(in Inputs) string {
	rep := Status(in)
	cfg := cfgOf(in)
	catalog := Catalog(rep.Skills, limit(cfg, "maxSkillsInPrompt", DefaultMaxSkillsInPrompt),
		limit(cfg, "maxSkillsPromptChars", DefaultMaxSkillsPromptChars))
	if catalog == "" {
		return ""
	}
	return "## Skills\n" +
		"Scan <available_skills> before you act. When one skill clearly fits the task, read its file at the exact <location> with `read` and follow it. " +
		"When several fit, take the most specific; when none fits, read none. Read at most one skill up front, and never make up a path.\n" +
		catalog + "\n"
}

// Catalog renders the model-visible skills as the original's
// <available_skills> block, sorted by name, at most maxCount of them and
// at most maxChars long: when the full block is too long, descriptions
// are dropped first to keep as many names and locations as fit, then the
// room left is given back to shortened descriptions; a note then says the
// list was shortened and points at `openclaw skills check`.
func Catalog(all []*SkillStatus, maxCount, maxChars int) string {
	var vis []*SkillStatus
	for _, s := range all {
		if s.ModelVisible {
			vis = append(vis, s)
		}
	}
	sort.SliceStable(vis, func(i, j int) bool { return vis[i].Name < vis[j].Name })
	total := len(vis)
	if total == 0 {
		return ""
	}
	if maxCount < len(vis) {
		vis = vis[:maxCount]
	}
	fits := func(s string) bool { return len(s) <= maxChars }
	if full := render(vis, total, -1); fits(full) {
		return full
	}
	// Compact: the most skills that fit without descriptions.
	lo, hi := 0, len(vis)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(render(vis[:mid], total, 0)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	vis = vis[:lo]
	desc := 0
	if fits(render(vis, total, minDescriptionChars)) {
		dlo, dhi := minDescriptionChars, maxDescriptionChars
		for dlo < dhi {
			mid := (dlo + dhi + 1) / 2
			if fits(render(vis, total, mid)) {
				dlo = mid
			} else {
				dhi = mid - 1
			}
		}
		desc = dlo
	}
	return render(vis, total, desc)
}

// render writes the block; desc < 0 keeps descriptions whole, 0 drops
// them, n > 0 shortens each to n characters.
func render(ss []*SkillStatus, total, desc int) string {
	var b strings.Builder
	compact := desc >= 0
	switch {
	case len(ss) < total:
		how := ""
		if compact {
			how = " (compact: descriptions " + map[bool]string{true: "shortened", false: "left out"}[desc > 0] + ")"
		}
		b.WriteString("Note: the skills list is shortened to " + itoa(len(ss)) + " of " + itoa(total) + how + "; run `openclaw skills check` to see them all.\n")
	case compact:
		b.WriteString("Note: the skills list is compact (descriptions " + map[bool]string{true: "shortened", false: "left out"}[desc > 0] + "); run `openclaw skills check` to see them all.\n")
	}
	b.WriteString("These skills hold instructions for particular tasks. ")
	if compact && desc == 0 {
		b.WriteString("Read a skill's file at its location when the task matches its name.\n")
	} else {
		b.WriteString("Read a skill's file at its location when the task matches its description.\n")
	}
	b.WriteString("Relative paths inside a skill file are relative to that file's folder; use them as absolute paths in tool calls.\n")
	b.WriteString("<available_skills>\n")
	for _, s := range ss {
		b.WriteString("  <skill>\n    <name>" + xmlEscape(s.Name) + "</name>\n")
		d := s.Description
		if compact {
			d = shorten(d, desc)
		}
		if d != "" {
			b.WriteString("    <description>" + xmlEscape(d) + "</description>\n")
		}
		b.WriteString("    <location>" + xmlEscape(s.FilePath) + "</location>\n  </skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// shorten folds whitespace and cuts to n characters (ending in ...).
func shorten(s string, n int) string {
	if n <= 0 {
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n <= 3 {
		return string(r[:n])
	}
	return strings.TrimRight(string(r[:n-3]), " ") + "..."
}

var xmlRepl = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlEscape(s string) string { return xmlRepl.Replace(s) }
