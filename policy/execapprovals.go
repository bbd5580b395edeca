package policy

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ExecApprovals is the approvals document (spec §1.9).
type ExecApprovals struct {
	Version  int                           `json:"version"`
	Socket   json.RawMessage               `json:"socket,omitempty"`
	Defaults ExecApprovalAgent             `json:"defaults,omitzero"`
	Agents   map[string]*ExecApprovalAgent `json:"agents,omitempty"`
}

// ExecApprovalAgent is the defaults block or one agent's entry.
type ExecApprovalAgent struct {
	Security        string           `json:"security,omitempty"`
	Ask             string           `json:"ask,omitempty"`
	AskFallback     string           `json:"askFallback,omitempty"`
	AutoAllowSkills *bool            `json:"autoAllowSkills,omitempty"`
	Allowlist       []AllowlistEntry `json:"allowlist,omitempty"`
}

// AllowlistEntry allows executables matching Pattern (and, when set, args
// matching ArgPattern).
type AllowlistEntry struct {
	ID         string `json:"id,omitempty"`
	Pattern    string `json:"pattern"`
	ArgPattern string `json:"argPattern,omitempty"`
	// Env names the environment variables a call may set for this
	// program (`env: ["GIT_PAGER"]`). In allowlist mode any other override
	// is a miss: a program's own variables can run code (GIT_CONFIG_*,
	// TAR_OPTIONS), which an argPattern cannot see. Our addition: the
	// original keeps unknown entry fields as they are and ignores them.
	Env              []string `json:"env,omitempty"`
	Source           string   `json:"source,omitempty"`
	LastUsedAt       int64    `json:"lastUsedAt,omitempty"`
	LastUsedCommand  string   `json:"lastUsedCommand,omitempty"`
	LastResolvedPath string   `json:"lastResolvedPath,omitempty"`
}

// NewExecApprovals is an empty document (what a missing file reads as).
func NewExecApprovals() *ExecApprovals {
	return &ExecApprovals{Version: 1, Agents: map[string]*ExecApprovalAgent{}}
}

// Normalize fills what a parsed document may lack and merges the legacy
// agents.default into agents.main (spec §1.9).
func (d *ExecApprovals) Normalize() {
	if d.Version == 0 {
		d.Version = 1
	}
	if d.Agents == nil {
		d.Agents = map[string]*ExecApprovalAgent{}
	}
	if old := d.Agents["default"]; old != nil {
		m := d.Agent("main")
		m.Allowlist = append(m.Allowlist, old.Allowlist...)
		if m.Security == "" {
			m.Security = old.Security
		}
		if m.Ask == "" {
			m.Ask = old.Ask
		}
		if m.AskFallback == "" {
			m.AskFallback = old.AskFallback
		}
		delete(d.Agents, "default")
	}
}

// Agent returns the agent's entry, created when missing.
func (d *ExecApprovals) Agent(id string) *ExecApprovalAgent {
	if d.Agents == nil {
		d.Agents = map[string]*ExecApprovalAgent{}
	}
	a := d.Agents[id]
	if a == nil {
		a = &ExecApprovalAgent{}
		d.Agents[id] = a
	}
	return a
}

var securityRank = map[string]int{"deny": 0, "allowlist": 1, "full": 2}
var askRank = map[string]int{"off": 0, "on-miss": 1, "always": 2}

// TightestSecurity is the minimum of the non-empty values (deny < allowlist < full).
func TightestSecurity(vals ...string) string {
	out := ""
	for _, v := range vals {
		if _, ok := securityRank[v]; !ok {
			continue
		}
		if out == "" || securityRank[v] < securityRank[out] {
			out = v
		}
	}
	return out
}

// StrictestAsk is the maximum of the non-empty values (off < on-miss < always).
func StrictestAsk(vals ...string) string {
	out := ""
	for _, v := range vals {
		if _, ok := askRank[v]; !ok {
			continue
		}
		if out == "" || askRank[v] > askRank[out] {
			out = v
		}
	}
	return out
}

// DefaultApprovalsAgent is the agent whose entry `openclaw approvals set`
// writes (legacy agents.default merges into it): every gateway has it.
const DefaultApprovalsAgent = "main"

// Resolve is the agent's approvals policy from the file: its own entry's
// fields over the defaults. For an agent other than the default one
// (main) a field its entry leaves out is never looser than main's: it is
// the tightest (security, askFallback) or strictest (ask) of the defaults
// and main, and only the defaults' allowlist is inherited (main's entries
// were granted to main). So an id nobody wrote policy for, or one whose
// entry holds only an allow-always entry, never falls back to a laxer
// defaults block (issue 30: the defaults' built-in security is full while
// `approvals set` made main allowlist). Empty fields mean the file does
// not say.
func (d *ExecApprovals) Resolve(agent string) ExecApprovalAgent {
	def := d.Defaults
	out := ExecApprovalAgent{Security: def.Security, Ask: def.Ask, AskFallback: def.AskFallback, AutoAllowSkills: def.AutoAllowSkills,
		Allowlist: append([]AllowlistEntry{}, def.Allowlist...)}
	if agent == "" {
		agent = DefaultApprovalsAgent
	}
	if agent != DefaultApprovalsAgent {
		m := d.Resolve(DefaultApprovalsAgent)
		out.Security = TightestSecurity(out.Security, m.Security)
		out.Ask = StrictestAsk(out.Ask, m.Ask)
		out.AskFallback = TightestSecurity(out.AskFallback, m.AskFallback)
		if m.AutoAllowSkills != nil && !*m.AutoAllowSkills {
			out.AutoAllowSkills = m.AutoAllowSkills
		}
	}
	if a := d.Agents[agent]; a != nil {
		if a.Security != "" {
			out.Security = a.Security
		}
		if a.Ask != "" {
			out.Ask = a.Ask
		}
		if a.AskFallback != "" {
			out.AskFallback = a.AskFallback
		}
		if a.AutoAllowSkills != nil {
			out.AutoAllowSkills = a.AutoAllowSkills
		}
		out.Allowlist = append(out.Allowlist, a.Allowlist...)
	}
	return out
}

// Effective returns the agent's security, ask and allowlist from the file
// (see Resolve; "" when the file does not say).
func (d *ExecApprovals) Effective(agent string) (security, ask string, allow []AllowlistEntry) {
	r := d.Resolve(agent)
	return r.Security, r.Ask, r.Allowlist
}

// Segment is one simple command of a shell line: argv and whether argv[0]
// was found through PATH (a bare name) rather than typed as a path.
type Segment struct {
	Argv     []string
	Resolved string // absolute real path of argv[0], "" when not found
	ViaPATH  bool
	// Expands marks the words of Argv the shell may expand (a $ outside
	// single quotes, or an unquoted glob or ~): their text is not what the
	// program will see. Nil when unknown (then every word is suspect).
	Expands []bool
}

// AnalyzeCommand splits a shell line into simple commands on |, &&, || and
// ;. ok is false for what allowlist mode cannot vouch for: redirections,
// command or process substitution, heredocs, backgrounding, subshells,
// unbalanced quotes (spec §1.8 step 3: a miss).
func AnalyzeCommand(line string) (segs [][]string, ok bool) {
	words, ok := AnalyzeWords(line)
	for _, w := range words {
		segs = append(segs, w.Argv)
	}
	return segs, ok
}

// AnalyzeWords is AnalyzeCommand with, for each word, whether the shell
// may expand it (see Segment.Expands).
func AnalyzeWords(line string) (segs []Segment, ok bool) {
	var cur Segment
	var word strings.Builder
	inWord, expands := false, false
	flushWord := func() {
		if inWord {
			cur.Argv = append(cur.Argv, word.String())
			cur.Expands = append(cur.Expands, expands)
			word.Reset()
			inWord, expands = false, false
		}
	}
	flushSeg := func() bool {
		flushWord()
		if len(cur.Argv) == 0 {
			return false
		}
		segs = append(segs, cur)
		cur = Segment{}
		return true
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				return nil, false
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord = true
			i = j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' {
					j++
					continue
				}
				if rs[j] == '`' || (rs[j] == '$' && j+1 < len(rs) && rs[j+1] == '(') {
					return nil, false
				}
				if rs[j] == '$' {
					expands = true
				}
			}
			if j >= len(rs) {
				return nil, false
			}
			word.WriteString(string(rs[i+1 : j]))
			inWord = true
			i = j
		case c == '\\':
			if i+1 >= len(rs) {
				return nil, false
			}
			word.WriteRune(rs[i+1])
			inWord = true
			i++
		case c == ' ' || c == '\t':
			flushWord()
		case c == '|' || c == ';' || c == '\n':
			if i+1 < len(rs) && rs[i] == '|' && rs[i+1] == '|' {
				i++
			}
			if !flushSeg() {
				return nil, false
			}
		case c == '&':
			if i+1 < len(rs) && rs[i+1] == '&' {
				i++
				if !flushSeg() {
					return nil, false
				}
				continue
			}
			return nil, false // backgrounding
		case c == '>' || c == '<' || c == '`' || c == '(' || c == ')' || c == '{' || c == '}':
			return nil, false
		case c == '$' && i+1 < len(rs) && rs[i+1] == '(':
			return nil, false
		case c == '$' || c == '*' || c == '?' || c == '[' || c == '~':
			word.WriteRune(c)
			inWord, expands = true, true
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if !flushSeg() {
		return nil, false
	}
	return segs, true
}

// MatchAllowlist reports whether a resolved segment is allowed by entries
// (path globs against the real path; bare-name globs against the basename,
// only for commands found through PATH; argPattern against the args).
func MatchAllowlist(seg Segment, entries []AllowlistEntry, home string) *AllowlistEntry {
	for i := range entries {
		e := &entries[i]
		p := e.Pattern
		if p == "*" && e.ArgPattern == "" {
			return e
		}
		var hit bool
		if strings.ContainsAny(p, "/~") {
			if strings.HasPrefix(p, "~") {
				p = home + p[1:]
			}
			hit = seg.Resolved != "" && pathGlob(p, seg.Resolved)
		} else {
			hit = seg.ViaPATH && seg.Resolved != "" && pathGlob(p, filepath.Base(seg.Resolved))
		}
		if !hit {
			continue
		}
		if e.ArgPattern != "" {
			re, err := regexp.Compile(e.ArgPattern)
			if err != nil || !re.MatchString(strings.Join(seg.Argv[1:], " ")) {
				continue
			}
		}
		return e
	}
	return nil
}

// MatchAllowlistEnv is MatchAllowlist for a program run with the
// environment overrides keys: only entries that allow every key (see
// EntryAllowsEnv) can vouch for it. No keys: MatchAllowlist.
func MatchAllowlistEnv(seg Segment, entries []AllowlistEntry, home string, keys []string) *AllowlistEntry {
	if len(keys) == 0 {
		return MatchAllowlist(seg, entries, home)
	}
	var ok []AllowlistEntry
	for _, e := range entries {
		if EntryAllowsEnv(e, keys) {
			ok = append(ok, e)
		}
	}
	if m := MatchAllowlist(seg, ok, home); m != nil {
		for i := range entries {
			if entries[i].Pattern == m.Pattern && entries[i].ArgPattern == m.ArgPattern && slices.Equal(entries[i].Env, m.Env) {
				return &entries[i]
			}
		}
	}
	return nil
}

// EntryAllowsEnv reports whether entry e lets a call set every key: a
// bare "*" (which allows everything) does; any other entry only the keys
// its env list names (exact, case-sensitive, as the kernel compares them).
func EntryAllowsEnv(e AllowlistEntry, keys []string) bool {
	if e.Pattern == "*" && e.ArgPattern == "" {
		return true
	}
	for _, k := range keys {
		if !slices.Contains(e.Env, k) {
			return false
		}
	}
	return true
}

// pathGlob: ** any chars incl. /, * any except /, ? one except /; anchored.
func pathGlob(pattern, s string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				re.WriteString(".*")
				i++
			} else {
				re.WriteString("[^/]*")
			}
		case '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), s)
	return ok
}
