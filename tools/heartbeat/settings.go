package heartbeat

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Defaults of a heartbeat (the original's).
const (
	defaultEvery = 30 * time.Minute
	// minEvery is the shortest interval honoured: a smaller one is raised
	// to it, so a typo cannot turn the runner into a model-call loop.
	minEvery = time.Second
	// defaultAckMaxChars: a reply that is HEARTBEAT_OK plus at most this
	// many characters is an acknowledgement, dropped.
	defaultAckMaxChars = 300
	// maxDefaultTimeout caps the turn timeout taken from the interval.
	maxDefaultTimeout = 600 * time.Second
	// Token is the acknowledgement a heartbeat reply that needs no
	// attention consists of.
	Token = "HEARTBEAT_OK"
	// DefaultPrompt is the heartbeat turn's message unless prompt is set.
	DefaultPrompt = "Read HEARTBEAT.md if it exists (workspace context) and follow it strictly. " +
		"Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply " + Token + "."
)

// settings is one agent's heartbeat block: agents.defaults.heartbeat with
// agents.list[].heartbeat merged over it, key by key.
type settings struct {
	Every          string       `json:"every"`
	Prompt         string       `json:"prompt"`
	Target         string       `json:"target"`
	To             string       `json:"to"`
	AccountID      string       `json:"accountId"`
	Model          string       `json:"model"`
	Session        string       `json:"session"`
	AckMaxChars    *int         `json:"ackMaxChars"`
	TimeoutSeconds int          `json:"timeoutSeconds"`
	ActiveHours    *activeHours `json:"activeHours"`
}

type activeHours struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Timezone string `json:"timezone"`
}

// plan is which agents run scheduled heartbeats: those whose
// agents.list[] entry has a heartbeat block, else the default agent alone.
func plan(cfg *config.Config) []string {
	var list []map[string]any
	_ = cfg.Decode("agents.list", &list)
	var ids []string
	for _, a := range list {
		if _, ok := a["heartbeat"]; ok {
			if id, _ := a["id"].(string); id != "" {
				ids = append(ids, sessions.NormalizeAgentID(id))
			}
		}
	}
	if len(ids) == 0 {
		return []string{sessions.NormalizeAgentID(tools.DefaultAgentID(cfg))}
	}
	sort.Strings(ids)
	return ids
}

// resolve is agentID's heartbeat settings.
func resolve(cfg *config.Config, agentID string) settings {
	merged := map[string]any{}
	var defs map[string]any
	_ = cfg.Decode("agents.defaults.heartbeat", &defs)
	for k, v := range defs {
		merged[k] = v
	}
	var list []map[string]any
	_ = cfg.Decode("agents.list", &list)
	for _, a := range list {
		if id, _ := a["id"].(string); sessions.NormalizeAgentID(id) == agentID {
			if own, ok := a["heartbeat"].(map[string]any); ok {
				for k, v := range own {
					merged[k] = v
				}
			}
		}
	}
	var s settings
	b, _ := json.Marshal(merged)
	_ = json.Unmarshal(b, &s) // a wrong type is the schema check's to report; it leaves the field zero
	return s
}

// interval is the settings' every: 0 when off ("0m") or unreadable.
func (s settings) interval() time.Duration {
	raw := strings.TrimSpace(s.Every)
	if raw == "" {
		return defaultEvery
	}
	if _, err := strconv.ParseFloat(raw, 64); err == nil {
		raw += "m" // a bare number is minutes
	}
	ms, err := cronexpr.ParseDuration(raw)
	if err != nil || ms <= 0 {
		return 0
	}
	return max(time.Duration(ms)*time.Millisecond, minEvery)
}

func (s settings) ackMax() int {
	if s.AckMaxChars != nil && *s.AckMaxChars >= 0 {
		return *s.AckMaxChars
	}
	return defaultAckMaxChars
}

func (s settings) prompt() string {
	if p := strings.TrimSpace(s.Prompt); p != "" {
		return p
	}
	return DefaultPrompt
}

// timeout is the turn's: timeoutSeconds, else 0 (the runtime's
// agents.defaults.timeoutSeconds) when that is set, else the interval
// capped at 600 s.
func (s settings) timeout(cfg *config.Config) time.Duration {
	if s.TimeoutSeconds > 0 {
		return time.Duration(s.TimeoutSeconds) * time.Second
	}
	if _, ok := cfg.Get("agents.defaults.timeoutSeconds"); ok {
		return 0
	}
	if every := s.interval(); every > 0 && every < maxDefaultTimeout {
		return every
	}
	return maxDefaultTimeout
}

// within reports whether now falls in the active hours (always, without
// a window or with one that does not parse). start is inclusive, end
// exclusive; end before start wraps past midnight; start equal to end is
// a zero-width window, never active.
func (a *activeHours) within(now time.Time, userTZ string) bool {
	if a == nil || (a.Start == "" && a.End == "") {
		return true
	}
	start, ok1 := clockMinutes(a.Start, false)
	end, ok2 := clockMinutes(a.End, true)
	if !ok1 || !ok2 {
		return true
	}
	t := now.In(zone(a.Timezone, userTZ))
	cur := t.Hour()*60 + t.Minute()
	switch {
	case start == end:
		return false
	case start < end:
		return cur >= start && cur < end
	}
	return cur >= start || cur < end
}

var hhmm = regexp.MustCompile(`^([01]\d|2[0-3]):([0-5]\d)$`)

// clockMinutes reads HH:MM as minutes after midnight; 24:00 only as an end.
func clockMinutes(s string, isEnd bool) (int, bool) {
	s = strings.TrimSpace(s)
	if isEnd && s == "24:00" {
		return 24 * 60, true
	}
	m := hhmm.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	return h*60 + mi, true
}

// zone is the active hours' time zone: an IANA name, "local" (the host's),
// or "user"/unset/unknown: agents.defaults.userTimezone, else the host's.
func zone(name, userTZ string) *time.Location {
	switch n := strings.TrimSpace(name); {
	case strings.EqualFold(n, "local"):
		return time.Local
	case n != "" && !strings.EqualFold(n, "user"):
		if loc, err := time.LoadLocation(n); err == nil {
			return loc
		}
	}
	if userTZ != "" {
		if loc, err := time.LoadLocation(userTZ); err == nil {
			return loc
		}
	}
	return time.Local
}

// commentRe matches HTML comments, which may span lines.
var commentRe = regexp.MustCompile(`(?s)<!--.*?-->`)

// emptyStub matches a line that says nothing: a heading, a fence, an
// empty list item or checkbox.
var emptyStub = regexp.MustCompile(`^(#+(\s.*)?|` + "```" + `.*|[-*+](\s*\[[ xX]?\])?)$`)

// effectivelyEmpty reports a HEARTBEAT.md with nothing to act on: blank
// lines, headings, comments, fences and empty list stubs only.
func effectivelyEmpty(text string) bool {
	for _, line := range strings.Split(commentRe.ReplaceAllString(text, ""), "\n") {
		l := strings.TrimSpace(line)
		if l != "" && !emptyStub.MatchString(l) {
			return false
		}
	}
	return true
}

// stripToken reads a heartbeat reply: HEARTBEAT_OK at its start or end
// (bold or not) is removed; ack is true when the token was there and what
// is left is at most maxChars characters (the reply is then dropped).
func stripToken(reply string, maxChars int) (text string, ack bool) {
	t := strings.TrimSpace(reply)
	had := false
	for _, tok := range []string{"**" + Token + "**", Token} {
		for {
			switch {
			case strings.HasPrefix(t, tok):
				t = strings.TrimSpace(t[len(tok):])
			case strings.HasSuffix(t, tok):
				t = strings.TrimSpace(t[:len(t)-len(tok)])
			default:
				goto next
			}
			had = true
		}
	next:
	}
	if !had {
		return strings.TrimSpace(reply), false
	}
	t = strings.TrimLeft(t, ".,;:!- ")
	return t, len([]rune(t)) <= maxChars
}
