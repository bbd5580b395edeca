package cron

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// cron.next prints the next run times of an expression from the code the
// scheduler uses (as `systemd-analyze calendar --iterations` does for
// systemd timers). It runs in the calling process: no gateway needed.

const maxNextCount = 1000

type nextParams struct {
	Expr  string `json:"expr"`
	TZ    string `json:"tz"`
	From  string `json:"from"`
	Count *int   `json:"count"`
}

func init() {
	tools.Register(&tools.Action{
		Method: "cron.next", Where: tools.Local, Hidden: true, Scope: protocol.ScopeRead,
		Summary: "Print the next run times of a cron expression",
		Description: "EXPR is a cron expression of 5, 6 (seconds first) or 7 (year last) fields, or @daily and the like,\n" +
			"evaluated as the scheduler does (the original's rules: L, W, #, the day-of-month/day-of-week OR,\n" +
			"a run in a spring-forward gap skipped, a repeated fall-back hour run once). --tz is an IANA zone\n" +
			"(default: this host's), --from a time (ISO-8601, offset-less ones in --tz; epoch ms; default now),\n" +
			"--count how many runs (default 5, at most 1000).",
		Examples: []string{"openclaw cron next '0 9 * * 1-5' --tz Europe/Berlin --count 3",
			"openclaw cron next '30 2 * * *' --tz America/New_York --from 2026-03-07T00:00:00 --json"},
		Args: []string{"expr"},
		Schema: `{"type":"object","properties":{
			"expr":{"type":"string","description":"the cron expression"},
			"tz":{"type":"string","description":"IANA time zone (default: this host's)"},
			"from":{"type":"string","description":"start after this time (ISO-8601 or epoch ms; default now)"},
			"count":{"type":"integer","minimum":1,"maximum":1000,"description":"how many runs (default 5)"}
		},"required":["expr"],"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p nextParams) (any, error) {
			return nextRuns(p, time.Now().UnixMilli())
		}),
		Render: renderNext,
	})
}

func nextRuns(p nextParams, now int64) (any, error) {
	s, err := cronexpr.Compile(strings.TrimSpace(p.Expr), p.TZ)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "%v", err)
	}
	from := now
	if f := strings.TrimSpace(p.From); f != "" {
		if from, err = resolveAt(f, p.TZ, now); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "from: %v", err)
		}
	}
	n := 5
	if p.Count != nil {
		n = min(max(*p.Count, 1), maxNextCount)
	}
	out := struct {
		Runs []int64 `json:"runs"`
		TZ   string  `json:"tz"`
	}{Runs: s.NextN(from, n), TZ: s.Location().String()}
	return out, nil
}

// renderNext prints one run per line in the zone the runs are for (tz:
// the one given, else the host's): the wall time, its offset and zone
// abbreviation, and how far away it is.
func renderNext(w io.Writer, r gjson.Result) error {
	runs := r.Get("runs").Array()
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "No further runs.")
		return err
	}
	now := time.Now().UnixMilli()
	loc, err := cronexpr.LoadZone(r.Get("tz").String())
	if err != nil || r.Get("tz").String() == "Local" {
		loc = time.Local
	}
	for _, v := range runs {
		t := time.UnixMilli(v.Int()).In(loc)
		if _, err := fmt.Fprintf(w, "%s  %s\n", t.Format("Mon 2006-01-02 15:04:05 -07:00 MST"), relative(v.Int(), now)); err != nil {
			return err
		}
	}
	return nil
}
