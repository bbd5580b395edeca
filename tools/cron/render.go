package cron

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/texttable"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// Human output of the cron methods (a terminal; piped, the JSON is
// printed). Times are relative ("in 10m", "3h ago"), as the original's
// `cron list` shows them.

func relative(ms, now int64) string {
	if ms == 0 {
		return "-"
	}
	d := ms - now
	label := span(abs(d))
	if d >= 0 {
		return "in " + label
	}
	return label + " ago"
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// span is a rounded human duration: <1m, 45m, 5h, 3d.
func span(ms int64) string {
	switch {
	case ms < 60_000:
		return "<1m"
	case ms < 3_600_000:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms < 48*3_600_000:
		return fmt.Sprintf("%dh", ms/3_600_000)
	}
	return fmt.Sprintf("%dd", ms/86_400_000)
}

// exactDuration prints milliseconds exactly in the largest units: 10m,
// 1h30m, 7d, 1500ms.
func exactDuration(ms int64) string {
	if ms <= 0 {
		return "0ms"
	}
	var b strings.Builder
	for _, u := range []struct {
		n    int64
		name string
	}{{86_400_000, "d"}, {3_600_000, "h"}, {60_000, "m"}, {1000, "s"}, {1, "ms"}} {
		if ms >= u.n {
			fmt.Fprintf(&b, "%d%s", ms/u.n, u.name)
			ms %= u.n
		}
	}
	return b.String()
}

func scheduleLabel(s gjson.Result) string {
	switch s.Get("kind").String() {
	case KindAt:
		if ms, ok := cronexpr.ParseAbsoluteTime(s.Get("at").String()); ok {
			return "at " + time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") + "Z"
		}
		return "at " + s.Get("at").String()
	case KindEvery:
		return "every " + exactDuration(s.Get("everyMs").Int())
	case KindCron:
		base := "cron " + s.Get("expr").String()
		if tz := s.Get("tz").String(); tz != "" {
			base += " @ " + tz
		}
		var st int64
		if v := s.Get("staggerMs"); v.Exists() {
			st = v.Int()
		} else if TopOfHour(s.Get("expr").String()) {
			st = DefaultStaggerMs
		}
		if st <= 0 {
			return base + " (exact)"
		}
		return base + " (stagger " + exactDuration(st) + ")"
	}
	return "-"
}

func statusLabel(j gjson.Result) string {
	switch {
	case j.Get("state.runningAtMs").Exists():
		return "running"
	case !j.Get("enabled").Bool():
		return "disabled"
	case j.Get("state.lastRunStatus").String() != "":
		return j.Get("state.lastRunStatus").String()
	}
	return "idle"
}

func deliveryLabel(j gjson.Result) string {
	d := j.Get("delivery")
	switch mode := d.Get("mode").String(); mode {
	case "":
		return "-"
	case DeliveryAnnounce:
		ch := d.Get("channel").String()
		if ch == "" {
			ch = "last"
		}
		if to := d.Get("to").String(); to != "" {
			ch += ":" + to
		}
		return "announce -> " + ch
	case DeliveryWebhook:
		return "webhook -> " + d.Get("to").String()
	default:
		return mode
	}
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

func renderList(w io.Writer, r gjson.Result) error {
	jobs := r.Get("jobs").Array()
	if len(jobs) == 0 {
		_, err := fmt.Fprintln(w, "No automations.")
		return err
	}
	now := time.Now().UnixMilli()
	var rows [][]string
	for _, j := range jobs {
		next := "-"
		if j.Get("enabled").Bool() {
			next = relative(j.Get("state.nextRunAtMs").Int(), now)
		}
		name := j.Get("displayName").String()
		if name == "" {
			name = j.Get("name").String()
		}
		agent := j.Get("effectiveAgentId").String()
		if agent == "" {
			agent = j.Get("agentId").String()
		}
		rows = append(rows, []string{j.Get("id").String(), cut(name, 24), cut(scheduleLabel(j.Get("schedule")), 48), next,
			relative(j.Get("state.lastRunAtMs").Int(), now), statusLabel(j), j.Get("sessionTarget").String(),
			cut(deliveryLabel(j), 40), agent})
	}
	lines, err := texttable.Lines([]string{"ID", "Name", "Schedule", "Next", "Last", "Status", "Target", "Delivery", "Agent ID"}, rows)
	if err != nil {
		return err
	}
	if total := r.Get("total").Int(); total > int64(len(jobs)) {
		lines = append(lines, fmt.Sprintf("(%d of %d jobs)", len(jobs), total))
	}
	_, err = fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}

func renderJob(w io.Writer, j gjson.Result) error {
	now := time.Now().UnixMilli()
	p := j.Get("payload")
	what := p.Get("text").String()
	if p.Get("kind").String() == PayloadAgentTurn {
		what = p.Get("message").String()
	}
	next := "-"
	if j.Get("enabled").Bool() {
		next = relative(j.Get("state.nextRunAtMs").Int(), now)
	}
	agent := j.Get("agentId").String()
	if agent == "" {
		agent = "(default)"
	}
	lines := []string{
		"id: " + j.Get("id").String(),
		"name: " + j.Get("name").String(),
		"enabled: " + map[bool]string{true: "yes", false: "no"}[j.Get("enabled").Bool()],
		"schedule: " + scheduleLabel(j.Get("schedule")),
		"session: " + j.Get("sessionTarget").String() + " (wake " + j.Get("wakeMode").String() + ")",
		"agent: " + agent,
		"payload: " + p.Get("kind").String() + ": " + cut(texttable.Flat(what), 80),
		"delivery: " + deliveryLabel(j),
		"next: " + next,
		"last: " + relative(j.Get("state.lastRunAtMs").Int(), now),
		"status: " + statusLabel(j),
	}
	if e := j.Get("state.lastError").String(); e != "" {
		lines = append(lines, "last error: "+e)
	}
	if p := j.Get("deliveryPreview"); p.Get("label").String() == noTarget {
		lines = append(lines, "warning: "+p.Get("detail").String())
	}
	_, err := fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}

func renderStatus(w io.Writer, r gjson.Result) error {
	state := "enabled"
	if !r.Get("enabled").Bool() {
		state = "disabled (cron.enabled is false or OPENCLAW_SKIP_CRON=1): jobs are kept but do not run"
	}
	next := "-"
	if n := r.Get("nextWakeAtMs"); n.Type == gjson.Number {
		next = time.UnixMilli(n.Int()).Format(time.RFC3339) + " (" + relative(n.Int(), time.Now().UnixMilli()) + ")"
	}
	_, err := fmt.Fprintf(w, "scheduler: %s\njobs: %d\nnext wake: %s\nstore: %s\n", state, r.Get("jobs").Int(), next, r.Get("storePath").String())
	return err
}

func renderRemoved(w io.Writer, r gjson.Result) error {
	_, err := fmt.Fprintf(w, "✓ Removed job: %s\n", r.Get("id").String())
	return err
}

func renderRun(w io.Writer, r gjson.Result) error {
	if r.Get("enqueued").Bool() {
		_, err := fmt.Fprintf(w, "Queued run %s (see `openclaw cron runs --id %s`)\n", r.Get("runId").String(), jobOfRun(r.Get("runId").String()))
		return err
	}
	_, err := fmt.Fprintf(w, "Not run: %s\n", r.Get("reason").String())
	return err
}

// jobOfRun is the job id inside a run id (manual:<job>:<ms>:<n>).
func jobOfRun(runID string) string {
	parts := strings.Split(runID, ":")
	if len(parts) >= 2 {
		return parts[1]
	}
	return runID
}

func renderRuns(w io.Writer, r gjson.Result) error {
	entries := r.Get("entries").Array()
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "No runs.")
		return err
	}
	now := time.Now().UnixMilli()
	var rows [][]string
	for _, e := range entries {
		what := e.Get("summary").String()
		if err := e.Get("error").String(); err != "" {
			what = err
		}
		rows = append(rows, []string{time.UnixMilli(e.Get("runAtMs").Int()).Format("2006-01-02 15:04:05"),
			relative(e.Get("runAtMs").Int(), now), e.Get("status").String(), exactDuration(e.Get("durationMs").Int()),
			e.Get("deliveryStatus").String(), cut(what, 60)})
	}
	lines, err := texttable.Lines([]string{"Started", "When", "Status", "Took", "Delivery", "Summary / error"}, rows)
	if err != nil {
		return err
	}
	if total := r.Get("total").Int(); total > int64(len(entries)) {
		lines = append(lines, fmt.Sprintf("(%d of %d runs)", len(entries), total))
	}
	_, err = fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}
