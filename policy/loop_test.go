package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

func on() LoopSettings {
	t := true
	return LoopConfig{Enabled: &t}.Settings()
}

// call is one call to replay: args names the arguments, result the outcome
// ("" = the same outcome every time for these args).
type call struct{ tool, args, result string }

// replay feeds calls through a tracker as the door does and returns every
// verdict.
func replay(s LoopSettings, poll bool, calls []call) []LoopVerdict {
	tr := NewLoopTracker()
	var out []LoopVerdict
	for _, c := range calls {
		v, tk := tr.Before("s", s, c.tool, ArgsHash(c.tool, json.RawMessage(c.args)), poll)
		out = append(out, v)
		if v.Level != LoopCritical {
			res := c.result
			if res == "" {
				res = "same"
			}
			tk.Done(ResultHash(json.RawMessage(`{"content":[{"type":"text","text":"`+res+`"}]}`), ""))
		}
	}
	return out
}

func repeat(n int, s call) []call {
	out := make([]call, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// levelsAt summarises the verdicts as "call#:level:detector" where it changes.
func levelsAt(vs []LoopVerdict) string {
	var b []string
	prev := ""
	for i, v := range vs {
		k := v.Level + ":" + v.Detector
		if k != prev {
			b = append(b, strings.TrimSuffix(strings.Join([]string{itoa(i + 1), k}, ":"), ":"))
			prev = k
		}
	}
	return strings.Join(b, " ")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestLoopDetectors(t *testing.T) {
	read := call{"read", `{"path":"a"}`, ""}
	poll := call{"process", `{"sessionId":"x"}`, ""}
	alt := func(n int, resA, resB func(i int) string) []call {
		var out []call
		for i := range n {
			if i%2 == 0 {
				out = append(out, call{"read", `{"path":"a"}`, resA(i)})
			} else {
				out = append(out, call{"read", `{"path":"b"}`, resB(i)})
			}
		}
		return out
	}
	same := func(int) string { return "same" }
	for _, tc := range []struct {
		name  string
		s     LoopSettings
		poll  bool
		calls []call
		want  string
	}{
		{"off by default", LoopConfig{}.Settings(), false, repeat(40, read), "1:"},
		// Generic repeat: warns from the 11th identical call (10 before it),
		// blocks from the 21st (20 identical outcomes) — the classic only warned.
		{"generic repeat", on(), false, repeat(25, read), "1: 11:warning:generic_repeat 21:critical:generic_repeat"},
		// Blocked calls are recorded, so the streak grows to the breaker.
		{"breaker escalates", on(), false, repeat(40, read), "1: 11:warning:generic_repeat 21:critical:generic_repeat 31:critical:global_circuit_breaker"},
		// Different outcomes each time: warned (same args) but never blocked.
		{"progress is not blocked", on(), false, func() []call {
			var out []call
			for i := range 30 {
				out = append(out, call{"read", `{"path":"a"}`, itoa(i)})
			}
			return out
		}(), "1: 11:warning:generic_repeat"},
		// Key order does not make arguments different.
		{"stable args", on(), false, append(repeat(6, call{"read", `{"path":"a","limit":1}`, ""}), repeat(6, call{"read", `{"limit":1, "path":"a"}`, ""})...), "1: 11:warning:generic_repeat"},
		{"known poll", on(), true, repeat(22, poll), "1: 11:warning:known_poll_no_progress 21:critical:known_poll_no_progress"},
		{"known poll with progress", on(), true, func() []call {
			var out []call
			for i := range 25 {
				out = append(out, call{"process", `{"sessionId":"x"}`, itoa(i)})
			}
			return out
		}(), "1:"},
		{"ping-pong, no progress", on(), false, alt(22, same, same), "1: 10:warning:ping_pong 20:critical:ping_pong"},
		{"ping-pong with progress warns only", on(), false, alt(24, itoa, itoa), "1: 10:warning:ping_pong"},
		{"detector off", func() LoopSettings {
			t, f := true, false
			return LoopConfig{Enabled: &t, Detectors: &LoopDetectors{GenericRepeat: &f, PingPong: &f}}.Settings()
		}(), false, repeat(35, read), "1: 31:critical:global_circuit_breaker"},
		{"custom thresholds", func() LoopSettings {
			t, w, c := true, 2, 3
			return LoopConfig{Enabled: &t, WarningThreshold: &w, CriticalThreshold: &c}.Settings()
		}(), false, repeat(6, read), "1: 3:warning:generic_repeat 4:critical:generic_repeat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := levelsAt(replay(tc.s, tc.poll, tc.calls)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLoopMessages(t *testing.T) {
	vs := replay(on(), false, repeat(21, call{"read", `{"path":"a"}`, ""}))
	if m := vs[10].Message; m != "WARNING: You have called read 10 times with identical arguments. If this is not making progress, stop retrying and report the task as failed." {
		t.Errorf("warning = %q", m)
	}
	if m := vs[20].Message; m != "CRITICAL: Called read with identical arguments and identical outcomes 20 times. Session execution blocked to prevent runaway loops." {
		t.Errorf("critical = %q", m)
	}
}

func TestLoopSettingsAndMerge(t *testing.T) {
	tr, f, one, five := true, false, 1, 5
	s := LoopConfig{}.Settings()
	if s.Enabled || s.HistorySize != 30 || s.Warning != 10 || s.Critical != 20 || s.Breaker != 30 || !s.GenericRepeat || !s.KnownPoll || !s.PingPongCheck {
		t.Errorf("defaults = %+v", s)
	}
	// Out of order thresholds are put in order.
	s = LoopConfig{WarningThreshold: &five, CriticalThreshold: &one, GlobalCircuitBreakerThreshold: &one}.Settings()
	if s.Warning != 5 || s.Critical != 6 || s.Breaker != 7 {
		t.Errorf("ordered = %+v", s)
	}
	// The agent override wins key by key.
	m := MergeLoop(&LoopConfig{Enabled: &tr, WarningThreshold: &five, Detectors: &LoopDetectors{PingPong: &f}},
		&LoopConfig{Enabled: &f, Detectors: &LoopDetectors{GenericRepeat: &f}}).Settings()
	if m.Enabled || m.Warning != 5 || m.GenericRepeat || m.PingPongCheck || !m.KnownPoll {
		t.Errorf("merged = %+v", m)
	}
	if !IsKnownPoll("process", "poll") || !IsKnownPoll("process", "log") || IsKnownPoll("process", "write") || !IsKnownPoll("command_status", "") {
		t.Error("IsKnownPoll")
	}
}

func TestLoopHistoryWindowAndSessions(t *testing.T) {
	tr := NewLoopTracker()
	h := 5
	tt := true
	s := LoopConfig{Enabled: &tt, HistorySize: &h}.Settings()
	for range 50 {
		_, tk := tr.Before("a", s, "read", "read:x", false)
		tk.Done("r")
	}
	if n := len(tr.sessions["a"].calls); n != 5 {
		t.Errorf("history = %d, want 5", n)
	}
	// Another session starts clean.
	if v, _ := tr.Before("b", s, "read", "read:x", false); v.Level != "" {
		t.Errorf("session b = %+v", v)
	}
}
