package cron

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// originalTable is the part of testdata/cron/nextrun.json this package
// checks: the original's default stagger per expression and its parsing of
// `at` values.
func originalTable(t *testing.T) (staggers []struct {
	Expr      string `json:"expr"`
	StaggerMs int64  `json:"staggerMs"`
}, ats []struct {
	Input string `json:"input"`
	Ms    *int64 `json:"ms"`
}) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cron", "nextrun.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		Staggers []struct {
			Expr      string `json:"expr"`
			StaggerMs int64  `json:"staggerMs"`
		} `json:"staggers"`
		Ats []struct {
			Input string `json:"input"`
			Ms    *int64 `json:"ms"`
		} `json:"ats"`
	}
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Staggers) < 10 || len(tab.Ats) < 10 {
		t.Fatal("table without staggers or ats")
	}
	return tab.Staggers, tab.Ats
}

// The default stagger window of every expression in the table is the
// original's (300000 for recurring top-of-hour expressions, else 0), and
// the spec's own cases hold.
func TestDefaultStaggerEqualsOriginal(t *testing.T) {
	staggers, _ := originalTable(t)
	for _, s := range staggers {
		var got int64
		if TopOfHour(s.Expr) {
			got = DefaultStaggerMs
		}
		if got != s.StaggerMs {
			t.Errorf("%q: stagger %d, the original %d", s.Expr, got, s.StaggerMs)
		}
	}
	for expr, want := range map[string]bool{"0 * * * *": true, "0 */2 * * *": true, "0 0 * * * *": true,
		"0 7 * * *": false, "30 * * * *": false, "0 8,11,14 * * *": false} {
		if TopOfHour(expr) != want {
			t.Errorf("TopOfHour(%q) = %v", expr, !want)
		}
	}
	if w := staggerWindow(&Schedule{Kind: KindCron, Expr: "0 * * * *", StaggerMs: i64(0)}); w != 0 {
		t.Errorf("explicit staggerMs 0 is exact, got %d", w)
	}
}

// The per-job offset is uint32_be(sha256(id)[0:4]) mod window: the same
// id gives the same offset, and the staggered run is the base run shifted
// by it.
func TestStaggerOffset(t *testing.T) {
	sum := sha256.Sum256([]byte("job-1"))
	want := int64(binary.BigEndian.Uint32(sum[:4])) % DefaultStaggerMs
	if got := staggerOffset("job-1", DefaultStaggerMs); got != want || staggerOffset("job-1", DefaultStaggerMs) != got {
		t.Fatalf("offset %d, want %d", got, want)
	}
	if staggerOffset("job-1", 1) != 0 {
		t.Fatal("a window of 1 ms has no offset")
	}
	j := &Job{ID: "job-1", Enabled: true, Schedule: Schedule{Kind: KindCron, Expr: "0 * * * *", TZ: "UTC", StaggerMs: i64(DefaultStaggerMs)}}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixMilli()
	got, ok := jobNext(j, now)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixMilli()
	if !ok || (got != base+want && got != base+3_600_000+want) || got <= now {
		t.Fatalf("staggered next %d, base %d offset %d", got, base, want)
	}
}

// `at` values parse as the original parses them (epoch ms, ISO with and
// without offset, 24:00, invalid dates refused).
func TestAtParsingEqualsOriginal(t *testing.T) {
	_, ats := originalTable(t)
	for _, a := range ats {
		got, ok := cronexpr.ParseAbsoluteTime(a.Input)
		switch {
		case a.Ms == nil && ok:
			t.Errorf("%q: parsed as %d, the original refuses it", a.Input, got)
		case a.Ms != nil && (!ok || got != *a.Ms):
			t.Errorf("%q: %d %v, the original %d", a.Input, got, ok, *a.Ms)
		}
	}
}

func TestDurations(t *testing.T) {
	for in, want := range map[string]int64{"500ms": 500, "30s": 30_000, "5m": 300_000, "2h": 7_200_000, "1d": 86_400_000,
		"1h30m": 5_400_000, "600000": 600_000, "1.5s": 1500, " 10M ": 600_000} {
		if got, err := cronexpr.ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "10 m", "1h30", "m5", "-5m"} {
		if _, err := cronexpr.ParseDuration(bad); err == nil || !strings.Contains(err.Error(), "Use values like 500ms, 30s, 5m, 2h, or 1h30m.") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// every: an anchor in the future is the first run; in the past, the next
// multiple after now.
func TestEveryAnchor(t *testing.T) {
	s := Schedule{Kind: KindEvery, EveryMs: 1000, AnchorMs: i64(5000)}
	if n, _ := baseNext(&s, 2000); n != 5000 {
		t.Errorf("future anchor: %d", n)
	}
	if n, _ := baseNext(&s, 7500); n != 8000 {
		t.Errorf("past anchor: %d", n)
	}
	if n, _ := baseNext(&s, 8000); n != 9000 {
		t.Errorf("on a slot: %d (strictly after now)", n)
	}
}

func addJob(t *testing.T, params string) (*Job, error) {
	t.Helper()
	m, err := decodeObject([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	return newJobFrom("cron.add", m, time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli(), "id-1")
}

// Sloppy input as models and people send it is normalised as the
// original does.
func TestSloppyInput(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	cases := []struct {
		name, in string
		check    func(j *Job) bool
	}{
		{"top-level message", `{"schedule":{"kind":"every","everyMs":60000},"message":"hi","model":"m1","timeoutSeconds":"30.7"}`,
			func(j *Job) bool {
				return j.Payload.Kind == PayloadAgentTurn && j.Payload.Message == "hi" && j.Payload.Model == "m1" &&
					*j.Payload.TimeoutSeconds == 30 && j.SessionTarget == TargetIsolated && j.Delivery.Mode == DeliveryAnnounce && j.Name == "hi"
			}},
		{"top-level text and durations", `{"name":"x","every":"10m","text":"ping"}`,
			func(j *Job) bool {
				return j.Schedule.Kind == KindEvery && j.Schedule.EveryMs == 600_000 && *j.Schedule.AnchorMs == now &&
					j.Payload.Kind == PayloadSystemEvent && j.SessionTarget == TargetMain && j.WakeMode == WakeNow && j.Enabled
			}},
		{"job wrapper, kinds in any case", `{"job":{"name":"x","schedule":{"expr":"0 9 * * *","tz":"Europe/Berlin"},"sessionTarget":" MAIN ","payload":{"kind":"SystemEvent","text":"t"},"enabled":"false"}}`,
			func(j *Job) bool {
				return j.Schedule.Kind == KindCron && j.Schedule.StaggerMs == nil && j.SessionTarget == TargetMain && !j.Enabled
			}},
		{"relative at", `{"name":"x","schedule":{"at":"20m"},"text":"t"}`,
			func(j *Job) bool {
				a, _ := cronexpr.ParseAbsoluteTime(j.Schedule.At)
				return a == now+20*60_000 && *j.DeleteAfterRun
			}},
		{"ISO without offset is UTC", `{"name":"x","schedule":{"kind":"at","at":"2031-02-01T16:00:00"},"text":"t"}`,
			func(j *Job) bool { return j.Schedule.At == "2031-02-01T16:00:00.000Z" }},
		{"offset-less at in tz", `{"name":"x","schedule":{"kind":"at","at":"2031-07-01T09:00:00","tz":"America/New_York"},"text":"t"}`,
			func(j *Job) bool { return j.Schedule.At == "2031-07-01T13:00:00.000Z" }},
		{"atMs", `{"name":"x","schedule":{"atMs":1990000000000},"text":"t"}`,
			func(j *Job) bool { return j.Schedule.At == cronexpr.ISOString(1990000000000) }},
		{"top-of-hour default stagger", `{"name":"x","cron":"0 * * * *","text":"t"}`,
			func(j *Job) bool { return *j.Schedule.StaggerMs == DefaultStaggerMs }},
		{"legacy delivery hints", `{"name":"x","every":"1h","message":"m","deliver":true,"channel":"Slack","to":"channel:C1"}`,
			func(j *Job) bool {
				return j.Delivery.Mode == DeliveryAnnounce && j.Delivery.Channel == "slack" && j.Delivery.To == "channel:C1"
			}},
		{"agent id sanitised", `{"name":"x","every":"1h","text":"t","agentId":"  Ops Team "}`,
			func(j *Job) bool { return j.AgentID == "ops-team" }},
		{"name inferred", `{"schedule":{"kind":"cron","expr":"5 4 * * *"},"payload":{"kind":"systemEvent","text":"  \n first line\nsecond"}}`,
			func(j *Job) bool { return j.Name == "first line" }},
	}
	for _, c := range cases {
		j, err := addJob(t, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.check(j) {
			b, _ := json.Marshal(j)
			t.Errorf("%s: %s", c.name, b)
		}
	}
}

// Everything else is refused, naming the field.
func TestBadInputNamesTheField(t *testing.T) {
	for in, want := range map[string]string{
		`{"name":"x","schedule":{"kind":"every","everyMs":"soon"},"text":"t"}`:                    "schedule.everyMs: Invalid duration",
		`{"name":"x","schedule":{"kind":"cron","expr":"not a cron"},"text":"t"}`:                  "invalid cron.add params: CronPattern: invalid configuration format ('not a cron'), exactly five, six, or seven space separated parts are required.",
		`{"name":"x","schedule":{"kind":"cron","expr":"0 7 * * *","tz":"Mars/Base"},"text":"t"}`:  "schedule.tz: invalid time zone",
		`{"name":"x","schedule":{"kind":"weekly"},"text":"t"}`:                                    "schedule.kind: must be",
		`{"name":"x","schedule":{"kind":"every","everyMs":1000,"expr":"x"},"text":"t"}`:           "schedule.expr: not allowed",
		`{"name":"x","every":"1m","sessionTarget":"main","message":"m"}`:                          `main cron jobs require payload.kind="systemEvent"`,
		`{"name":"x","every":"1m","sessionTarget":"isolated","text":"t"}`:                         `isolated cron jobs require payload.kind="agentTurn"`,
		`{"name":"x","every":"1m","payload":{"kind":"systemEvent","text":"t","color":"red"}}`:     "payload: unexpected property 'color'",
		`{"name":"x","every":"1m","message":"m","delivery":{"mode":"webhook","to":"ftp://x"}}`:    `delivery.mode="webhook" requires delivery.to to be a valid http(s) URL`,
		`{"name":"x","every":"1m","message":"m","delivery":{"mode":"sms"}}`:                       "delivery.mode: must be",
		`{"name":"x","schedule":{"kind":"at","at":"2020-01-01T00:00:00Z"},"text":"t"}`:            "schedule.at is in the past: 2020-01-01T00:00:00.000Z",
		`{"name":"x","schedule":{"kind":"at","at":"next week"},"text":"t"}`:                       "schedule.at: invalid time",
		`{"name":"x","every":"1m","text":"t","declarationKey":"k"}`:                               "declarationKey is not supported",
		`{"name":"x","every":"1m","payload":{"kind":"agentTurn","message":"m","thinking":"max"}}`: "payload.thinking: must be one of",
		`{"name":"x","every":"1m"}`: "payload: required",
	} {
		_, err := addJob(t, in)
		if err == nil || !strings.Contains(err.Error(), want) || tools.AsError(err).Code != tools.CodeInvalidParams {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// A patch changes only what it names; null clears agentId and the model;
// a schedule change recomputes the next run.
func TestPatch(t *testing.T) {
	h := newHarness(t, "")
	id := h.must("cron.add", `{"name":"p","agentId":"ops","schedule":{"kind":"every","everyMs":60000},"sessionTarget":"isolated","wakeMode":"now",
		"payload":{"kind":"agentTurn","message":"m","model":"a/b"}}`).Get("id").String()
	next := h.job(id).Get("state.nextRunAtMs").Int()
	j := h.must("cron.update", `{"id":"`+id+`","patch":{"name":"q","agentId":null,"payload":{"model":null,"thinking":"low"}}}`)
	if j.Get("name").String() != "q" || j.Get("agentId").Exists() || j.Get("payload.model").Exists() ||
		j.Get("payload.message").String() != "m" || j.Get("payload.thinking").String() != "low" || j.Get("state.nextRunAtMs").Int() != next {
		t.Fatalf("patched: %s", j.Raw)
	}
	h.clk.add(10 * time.Second)
	j = h.must("cron.update", `{"jobId":"`+id+`","patch":{"schedule":{"kind":"every","everyMs":"5m"}}}`)
	if j.Get("schedule.anchorMs").Int() != h.clk.now() || j.Get("state.nextRunAtMs").Int() != h.clk.now()+300_000 {
		t.Fatalf("rescheduled: %s", j.Raw)
	}
	j = h.must("cron.update", `{"id":"`+id+`","patch":{"enabled":false}}`)
	if j.Get("state.nextRunAtMs").Exists() {
		t.Fatalf("disabled job keeps a next run: %s", j.Raw)
	}
	if _, err := h.call("cron.update", `{"id":"`+id+`","patch":{"sessionTarget":"main"}}`); err == nil ||
		!strings.Contains(err.Error(), `main cron jobs require payload.kind="systemEvent"`) {
		t.Fatalf("inconsistent patch: %v", err)
	}
}
