package heartbeat

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/config"
)

func TestActiveHoursWindow(t *testing.T) {
	at := func(hhmm string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", "2026-03-02 "+hhmm, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		start, end, tz, now string
		want                bool
	}{
		{"09:00", "17:00", "UTC", "09:00", true}, // start inclusive
		{"09:00", "17:00", "UTC", "16:59", true},
		{"09:00", "17:00", "UTC", "17:00", false}, // end exclusive
		{"09:00", "17:00", "UTC", "08:59", false},
		{"22:00", "06:00", "UTC", "23:30", true}, // wraps midnight
		{"22:00", "06:00", "UTC", "05:59", true},
		{"22:00", "06:00", "UTC", "12:00", false},
		{"08:00", "24:00", "UTC", "23:59", true},               // 24:00 is end of day
		{"08:00", "08:00", "UTC", "08:00", false},              // zero width: never
		{"09:00", "17:00", "America/New_York", "13:59", false}, // 08:59 in New York
		{"09:00", "17:00", "America/New_York", "14:00", true},
		{"9am", "17:00", "UTC", "03:00", true}, // unreadable: no window
	}
	for _, c := range cases {
		a := &activeHours{Start: c.start, End: c.end, Timezone: c.tz}
		if got := a.within(at(c.now), ""); got != c.want {
			t.Errorf("%s-%s %s at %s UTC: %v, want %v", c.start, c.end, c.tz, c.now, got, c.want)
		}
	}
	// "user" (and unset) takes agents.defaults.userTimezone.
	a := &activeHours{Start: "09:00", End: "17:00"}
	if a.within(at("13:59"), "America/New_York") || !a.within(at("14:00"), "America/New_York") {
		t.Error("userTimezone not applied")
	}
	if (*activeHours)(nil).within(at("03:00"), "") != true {
		t.Error("no window must mean always")
	}
}

func TestStripToken(t *testing.T) {
	cases := []struct {
		reply, text string
		ack         bool
	}{
		{"HEARTBEAT_OK", "", true},
		{"  **HEARTBEAT_OK**  ", "", true},
		{"HEARTBEAT_OK. All quiet.", "All quiet.", true},
		{"All quiet. HEARTBEAT_OK", "All quiet.", true},
		{"The server is down!", "The server is down!", false},
		{"Before HEARTBEAT_OK after", "Before HEARTBEAT_OK after", false}, // the middle is not special
	}
	for _, c := range cases {
		text, ack := stripToken(c.reply, 300)
		if text != c.text || ack != c.ack {
			t.Errorf("%q: (%q, %v), want (%q, %v)", c.reply, text, ack, c.text, c.ack)
		}
	}
	long := "HEARTBEAT_OK x"
	for i := 0; i < 300; i++ {
		long += "y"
	}
	if _, ack := stripToken(long, 300); ack {
		t.Error("a reply longer than ackMaxChars after the token must be delivered")
	}
}

func TestEffectivelyEmpty(t *testing.T) {
	for text, want := range map[string]bool{
		"":                                       true,
		"# Heartbeat\n\n- [ ]\n-\n<!-- a\nb -->": true,
		"```\n```":                               true,
		"# Heartbeat\n- check the mail":          false,
		"Water the plants":                       false,
	} {
		if got := effectivelyEmpty(text); got != want {
			t.Errorf("%q: %v", text, got)
		}
	}
}

func cfgOf(t *testing.T, doc map[string]any) *config.Config {
	t.Helper()
	b, _ := json.Marshal(doc)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	c := config.Empty()
	c.Doc = m
	return c
}

func TestResolveAndPlan(t *testing.T) {
	cfg := cfgOf(t, map[string]any{"agents": map[string]any{
		"defaults": map[string]any{"heartbeat": map[string]any{"every": "10", "target": "last", "ackMaxChars": 5}},
		"list": []any{map[string]any{"id": "main", "default": true},
			map[string]any{"id": "Ops", "heartbeat": map[string]any{"every": "0m", "to": "7"}}},
	}})
	if got := plan(cfg); len(got) != 1 || got[0] != "ops" {
		t.Fatalf("plan %v: only agents with a heartbeat block run", got)
	}
	ops := resolve(cfg, "ops")
	if ops.interval() != 0 || ops.Target != "last" || ops.To != "7" || ops.ackMax() != 5 {
		t.Fatalf("ops %+v", ops)
	}
	if main := resolve(cfg, "main"); main.interval() != 10*time.Minute {
		t.Fatalf("a bare number is minutes: %v", main.interval())
	}
	if d := (settings{}).interval(); d != 30*time.Minute {
		t.Fatalf("default every %v", d)
	}
	if d := (settings{Every: "1ms"}).interval(); d != time.Second {
		t.Fatalf("every below a second %v", d)
	}
	if got := plan(config.Empty()); len(got) != 1 || got[0] != "main" {
		t.Fatalf("plan without blocks %v", got)
	}
}

func TestOwner(t *testing.T) {
	ch, to, acct, ok := owner(cfgOf(t, map[string]any{"commands": map[string]any{"ownerAllowFrom": []any{"*", "telegram:123"}}}))
	if !ok || ch != "telegram" || to != "123" || acct != "" {
		t.Fatalf("ownerAllowFrom: %s %s %s %v", ch, to, acct, ok)
	}
	ch, to, acct, ok = owner(cfgOf(t, map[string]any{"channels": map[string]any{
		"defaults": map[string]any{},
		"slack":    map[string]any{"allowFrom": []any{"*"}},
		"telegram": map[string]any{"accounts": map[string]any{"ops": map[string]any{"allowFrom": []any{"telegram:55"}}}},
	}}))
	if !ok || ch != "telegram" || to != "55" || acct != "ops" {
		t.Fatalf("channel allowFrom: %s %s %s %v", ch, to, acct, ok)
	}
	if _, _, _, ok := owner(cfgOf(t, map[string]any{"channels": map[string]any{"telegram": map[string]any{"allowFrom": []any{"*"}}}})); ok {
		t.Fatal("a wildcard is not an owner")
	}
}
