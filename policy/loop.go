package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Tool-call loop detection (tools.loopDetection): pure decisions over a
// session's recent tool calls. The door records every agent call and asks
// Detect before running one; a warning is shown to the model with the
// result, a critical verdict blocks the call.

// LoopConfig is tools.loopDetection (and agents.list[].tools.loopDetection,
// merged over it key by key). Nil fields take the defaults.
type LoopConfig struct {
	Enabled                       *bool          `json:"enabled,omitempty"`
	HistorySize                   *int           `json:"historySize,omitempty"`
	WarningThreshold              *int           `json:"warningThreshold,omitempty"`
	CriticalThreshold             *int           `json:"criticalThreshold,omitempty"`
	GlobalCircuitBreakerThreshold *int           `json:"globalCircuitBreakerThreshold,omitempty"`
	Detectors                     *LoopDetectors `json:"detectors,omitempty"`
}

// LoopDetectors switches the detectors one by one (all on by default).
type LoopDetectors struct {
	GenericRepeat       *bool `json:"genericRepeat,omitempty"`
	KnownPollNoProgress *bool `json:"knownPollNoProgress,omitempty"`
	PingPong            *bool `json:"pingPong,omitempty"`
}

// LoopSettings is a LoopConfig with every default applied and the
// thresholds put in order (warning < critical < breaker).
type LoopSettings struct {
	Enabled                                 bool
	HistorySize                             int
	Warning, Critical, Breaker              int
	GenericRepeat, KnownPoll, PingPongCheck bool
}

// Defaults of tools.loopDetection.
const (
	DefaultLoopHistory  = 30
	DefaultLoopWarning  = 10
	DefaultLoopCritical = 20
	DefaultLoopBreaker  = 30
)

// MergeLoop lays an agent's override over the global config, key by key.
func MergeLoop(global, agent *LoopConfig) LoopConfig {
	var out LoopConfig
	if global != nil {
		out = *global
		if global.Detectors != nil {
			d := *global.Detectors
			out.Detectors = &d
		}
	}
	if agent == nil {
		return out
	}
	for _, f := range []struct{ dst, src **int }{
		{&out.HistorySize, &agent.HistorySize}, {&out.WarningThreshold, &agent.WarningThreshold},
		{&out.CriticalThreshold, &agent.CriticalThreshold}, {&out.GlobalCircuitBreakerThreshold, &agent.GlobalCircuitBreakerThreshold},
	} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	if agent.Enabled != nil {
		out.Enabled = agent.Enabled
	}
	if agent.Detectors != nil {
		if out.Detectors == nil {
			out.Detectors = &LoopDetectors{}
		}
		d := agent.Detectors
		if d.GenericRepeat != nil {
			out.Detectors.GenericRepeat = d.GenericRepeat
		}
		if d.KnownPollNoProgress != nil {
			out.Detectors.KnownPollNoProgress = d.KnownPollNoProgress
		}
		if d.PingPong != nil {
			out.Detectors.PingPong = d.PingPong
		}
	}
	return out
}

// Settings applies the defaults: off; history 30; warning 10, critical 20,
// breaker 30, each raised above the one before when configured out of order.
func (c LoopConfig) Settings() LoopSettings {
	pos := func(p *int, def int) int {
		if p != nil && *p > 0 {
			return *p
		}
		return def
	}
	on := func(p *bool) bool { return p == nil || *p }
	s := LoopSettings{
		Enabled:     c.Enabled != nil && *c.Enabled,
		HistorySize: pos(c.HistorySize, DefaultLoopHistory),
		Warning:     pos(c.WarningThreshold, DefaultLoopWarning),
		Critical:    pos(c.CriticalThreshold, DefaultLoopCritical),
		Breaker:     pos(c.GlobalCircuitBreakerThreshold, DefaultLoopBreaker),
	}
	if s.Critical <= s.Warning {
		s.Critical = s.Warning + 1
	}
	if s.Breaker <= s.Critical {
		s.Breaker = s.Critical + 1
	}
	d := c.Detectors
	if d == nil {
		d = &LoopDetectors{}
	}
	s.GenericRepeat, s.KnownPoll, s.PingPongCheck = on(d.GenericRepeat), on(d.KnownPollNoProgress), on(d.PingPong)
	return s
}

// ToolCall is one call in a session's history. ResultHash is empty until
// the call's outcome is known.
type ToolCall struct {
	Tool       string
	ArgsHash   string
	ResultHash string
}

// Loop levels.
const (
	LoopWarning  = "warning"
	LoopCritical = "critical"
)

// LoopVerdict is what Detect found; Level "" means go ahead.
type LoopVerdict struct {
	Level    string `json:"level"`
	Detector string `json:"detector"`
	Count    int    `json:"count"`
	Message  string `json:"message"`
}

// IsKnownPoll reports the calls that poll for progress: process poll/log
// (verb is the multi-action tool's action) and command_status.
func IsKnownPoll(tool, verb string) bool {
	return tool == "command_status" || (tool == "process" && (verb == "poll" || verb == "log"))
}

// Detect decides, before a call runs, whether history shows a loop. The
// checks run in the original's order: global circuit breaker, known poll
// without progress, ping-pong, generic repeat. Unlike the original's
// classic version, generic repeat also blocks (at the critical threshold,
// when the outcomes are identical), as its later versions do.
func Detect(s LoopSettings, history []ToolCall, tool, argsHash string, knownPoll bool) LoopVerdict {
	if !s.Enabled {
		return LoopVerdict{}
	}
	streak := noProgressStreak(history, tool, argsHash)
	if streak >= s.Breaker {
		return LoopVerdict{LoopCritical, "global_circuit_breaker", streak, fmt.Sprintf(
			"CRITICAL: %s has repeated identical no-progress outcomes %d times. Session execution blocked by global circuit breaker to prevent runaway loops.", tool, streak)}
	}
	if knownPoll && s.KnownPoll {
		switch {
		case streak >= s.Critical:
			return LoopVerdict{LoopCritical, "known_poll_no_progress", streak, fmt.Sprintf(
				"CRITICAL: Called %s with identical arguments and no progress %d times. This appears to be a stuck polling loop. Session execution blocked to prevent resource waste.", tool, streak)}
		case streak >= s.Warning:
			return LoopVerdict{LoopWarning, "known_poll_no_progress", streak, fmt.Sprintf(
				"WARNING: You have called %s %d times with identical arguments and no progress. Stop polling and either (1) increase wait time between checks, or (2) report the task as failed if the process is stuck.", tool, streak)}
		}
	}
	if s.PingPongCheck {
		count, evidence := pingPong(history, argsHash)
		switch {
		case count >= s.Critical && evidence:
			return LoopVerdict{LoopCritical, "ping_pong", count, fmt.Sprintf(
				"CRITICAL: You are alternating between repeated tool-call patterns (%d consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.", count)}
		case count >= s.Warning:
			return LoopVerdict{LoopWarning, "ping_pong", count, fmt.Sprintf(
				"WARNING: You are alternating between repeated tool-call patterns (%d consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.", count)}
		}
	}
	if !knownPoll && s.GenericRepeat {
		if streak >= s.Critical {
			return LoopVerdict{LoopCritical, "generic_repeat", streak, fmt.Sprintf(
				"CRITICAL: Called %s with identical arguments and identical outcomes %d times. Session execution blocked to prevent runaway loops.", tool, streak)}
		}
		if n := recentCount(history, tool, argsHash); n >= s.Warning {
			return LoopVerdict{LoopWarning, "generic_repeat", n, fmt.Sprintf(
				"WARNING: You have called %s %d times with identical arguments. If this is not making progress, stop retrying and report the task as failed.", tool, n)}
		}
	}
	return LoopVerdict{}
}

// noProgressStreak counts, newest first, the calls with these arguments
// whose outcome equals the newest one's.
func noProgressStreak(h []ToolCall, tool, args string) int {
	latest, n := "", 0
	for i := len(h) - 1; i >= 0; i-- {
		r := h[i]
		if r.Tool != tool || r.ArgsHash != args || r.ResultHash == "" {
			continue
		}
		if latest == "" {
			latest = r.ResultHash
		} else if r.ResultHash != latest {
			break
		}
		n++
	}
	return n
}

func recentCount(h []ToolCall, tool, args string) int {
	n := 0
	for _, r := range h {
		if r.Tool == tool && r.ArgsHash == args {
			n++
		}
	}
	return n
}

// pingPong measures the alternation A,B,A,B… at the end of history that
// the current call (which must be B) continues; evidence is true when
// every call in it has an outcome and each side's outcomes never changed.
func pingPong(h []ToolCall, current string) (int, bool) {
	if len(h) == 0 {
		return 0, false
	}
	a := h[len(h)-1].ArgsHash
	b := ""
	for i := len(h) - 2; i >= 0; i-- {
		if h[i].ArgsHash != a {
			b = h[i].ArgsHash
			break
		}
	}
	if b == "" || current != b {
		return 0, false
	}
	tail := 0
	for i := len(h) - 1; i >= 0; i-- {
		want := a
		if tail%2 == 1 {
			want = b
		}
		if h[i].ArgsHash != want {
			break
		}
		tail++
	}
	if tail < 2 {
		return 0, false
	}
	resA, resB, evidence := "", "", true
	for i := len(h) - tail; i < len(h); i++ {
		r := h[i]
		if r.ResultHash == "" {
			evidence = false
			break
		}
		side := &resA
		if r.ArgsHash == b {
			side = &resB
		}
		if *side == "" {
			*side = r.ResultHash
		} else if *side != r.ResultHash {
			evidence = false
			break
		}
	}
	return tail + 1, evidence && resA != "" && resB != ""
}

// ArgsHash is "<tool>:" + sha256 of the params as JSON with object keys
// sorted at every level, so key order and spacing do not matter.
func ArgsHash(tool string, params json.RawMessage) string {
	var v any
	if err := json.Unmarshal(params, &v); err != nil {
		v = string(params)
	}
	return tool + ":" + digest(v)
}

// volatileKeys change on every call without saying anything about
// progress (ids, times, pids); they are left out of an outcome's hash.
var volatileKeys = map[string]bool{
	"durationMs": true, "pid": true, "sessionId": true, "cwd": true, "startedAt": true,
	"endedAt": true, "timestamp": true, "ts": true, "runId": true, "messageId": true,
	"toolCallId": true, "id": true, "createdAt": true, "updatedAt": true, "tookMs": true,
}

// ResultHash hashes a call's outcome: the error message for a failure,
// otherwise the result's details (volatile keys dropped) and its text.
func ResultHash(result json.RawMessage, errMsg string) string {
	if errMsg != "" {
		return "error:" + digest(errMsg)
	}
	var v any
	if err := json.Unmarshal(result, &v); err != nil {
		return digest(string(result))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return digest(v)
	}
	var text []string
	if blocks, ok := m["content"].([]any); ok {
		for _, b := range blocks {
			if bm, ok := b.(map[string]any); ok {
				if s, ok := bm["text"].(string); ok {
					text = append(text, s)
				}
			}
		}
		return digest(map[string]any{"details": stripVolatile(m["details"]), "text": strings.Join(text, "\n")})
	}
	return digest(stripVolatile(m))
}

func stripVolatile(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if !volatileKeys[k] {
				out[k] = stripVolatile(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = stripVolatile(val)
		}
		return out
	}
	return v
}

// digest is sha256 of a stable JSON encoding: encoding/json writes map
// keys sorted at every level.
func digest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
