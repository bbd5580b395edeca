package cron

import (
	"crypto/sha256"
	"encoding/binary"
	"regexp"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// Next-run computation for jobs (spec §1.3, the original's
// src/cron/service/jobs-scheduling.ts and src/cron/stagger.ts).

// DefaultStaggerMs is the window given to recurring top-of-hour
// expressions (`0 * * * *`), so jobs on the same hour do not all fire at
// once; `--exact` (staggerMs 0) turns it off.
const DefaultStaggerMs = 300_000

var hourListPart = regexp.MustCompile(`^(?:\d+|\d+-\d+)(?:/\d+)?$|^[*?](?:/\d+)?$`)

func recurringWildcardHour(field string) bool {
	parts := strings.Split(field, ",")
	wild := false
	for _, p := range parts {
		if !hourListPart.MatchString(p) {
			return false
		}
		wild = wild || strings.HasPrefix(p, "*") || strings.HasPrefix(p, "?")
	}
	return wild
}

// TopOfHour reports a recurring top-of-hour expression: minute 0 (and
// second 0 in 6-field form) with an hour field that repeats.
func TopOfHour(expr string) bool {
	f := strings.Fields(expr)
	switch len(f) {
	case 5:
		return f[0] == "0" && recurringWildcardHour(f[1])
	case 6:
		return f[0] == "0" && f[1] == "0" && recurringWildcardHour(f[2])
	}
	return false
}

// staggerWindow is the effective window: an explicit staggerMs (0 =
// exact), else the top-of-hour default, else 0.
func staggerWindow(s *Schedule) int64 {
	if s.StaggerMs != nil {
		return max(*s.StaggerMs, 0)
	}
	top := false
	if c := s.compiled; c != nil && c.expr == s.Expr && c.s != nil {
		top = c.topOfHour
	} else {
		top = TopOfHour(s.Expr)
	}
	if top {
		return DefaultStaggerMs
	}
	return 0
}

// staggerOffset is the job's deterministic place in its window:
// uint32_be(sha256(jobId)[0:4]) mod window.
func staggerOffset(jobID string, window int64) int64 {
	if window <= 1 {
		return 0
	}
	sum := sha256.Sum256([]byte(jobID))
	return int64(binary.BigEndian.Uint32(sum[:4])) % window
}

// compiled caches parsed schedules by zone and expression (the original
// keeps 512 croner instances; the scheduler holds one per job anyway).
var compiled sync.Map // "tz\x00expr" -> *cronexpr.Schedule

func compileCron(expr, tz string) (*cronexpr.Schedule, error) {
	key := tz + "\x00" + expr
	if s, ok := compiled.Load(key); ok {
		return s.(*cronexpr.Schedule), nil
	}
	s, err := cronexpr.Compile(strings.TrimSpace(expr), tz)
	if err != nil {
		return nil, err
	}
	compiled.Store(key, s)
	return s, nil
}

// baseNext is the schedule's next run strictly after now, without the
// job's stagger and history (the original's computeNextRunAtMs).
func baseNext(s *Schedule, now int64) (int64, bool) {
	switch s.Kind {
	case KindAt:
		at, ok := s.atMs()
		if !ok || at <= now {
			return 0, false
		}
		return at, true
	case KindEvery:
		if s.EveryMs < 1 {
			return 0, false
		}
		anchor := now
		if s.AnchorMs != nil {
			anchor = max(*s.AnchorMs, 0)
		}
		if now < anchor {
			return anchor, true
		}
		steps := (now-anchor)/s.EveryMs + 1
		return anchor + steps*s.EveryMs, true
	case KindCron:
		c, err := s.cron()
		if err != nil {
			return 0, false
		}
		return c.Next(now)
	}
	return 0, false
}

// cron is the schedule's parsed expression, kept on the schedule once
// parsed (a job's next run is computed after every run).
func (s *Schedule) cron() (*cronexpr.Schedule, error) {
	if c := s.compiled; c != nil && c.expr == s.Expr && c.tz == s.TZ {
		return c.s, nil
	}
	c, err := compileCron(s.Expr, s.TZ)
	if err != nil {
		return nil, err
	}
	s.compiled = &compiledCron{expr: s.Expr, tz: s.TZ, s: c, topOfHour: TopOfHour(s.Expr)}
	return c, nil
}

// atMs is the parsed At, kept on the schedule.
func (s *Schedule) atMs() (int64, bool) {
	if c := s.compiled; c != nil && c.at == s.At && c.s == nil {
		return c.atMs, c.atOK
	}
	ms, ok := cronexpr.ParseAbsoluteTime(s.At)
	s.compiled = &compiledCron{at: s.At, atMs: ms, atOK: ok}
	return ms, ok
}

// staggeredNext applies the job's stagger offset to a cron schedule:
// next = base(now − offset) + offset, searched up to 4 times for a value
// after now.
func staggeredNext(j *Job, now int64) (int64, bool) {
	if j.Schedule.Kind != KindCron {
		return baseNext(&j.Schedule, now)
	}
	if _, err := j.Schedule.cron(); err != nil {
		return 0, false
	}
	off := staggerOffset(j.ID, staggerWindow(&j.Schedule))
	if off <= 0 {
		return baseNext(&j.Schedule, now)
	}
	cursor := max(0, now-off)
	for range 4 {
		base, ok := baseNext(&j.Schedule, cursor)
		if !ok {
			return 0, false
		}
		if shifted := base + off; shifted > now {
			return shifted, true
		}
		cursor = max(cursor+1, base+1000)
	}
	return 0, false
}

// jobNext is the next run of an enabled job (the original's
// computeJobNextRunAtMs): `every` continues from the last run when that is
// later than the grid; a one-shot `at` keeps its time until it has run
// successfully; cron applies the stagger.
func jobNext(j *Job, now int64) (int64, bool) {
	if !j.Enabled {
		return 0, false
	}
	switch j.Schedule.Kind {
	case KindEvery:
		s := j.Schedule
		if s.EveryMs < 1 {
			return 0, false
		}
		anchor := j.CreatedAtMs
		if s.AnchorMs != nil {
			anchor = max(*s.AnchorMs, 0)
		}
		if last := j.State.LastRunAtMs; last != nil && *last >= anchor {
			if n := *last + s.EveryMs; n > now {
				return n, true
			}
		}
		s.AnchorMs = &anchor
		return baseNext(&s, now)
	case KindAt:
		at, ok := j.Schedule.atMs()
		if !ok {
			return 0, false
		}
		if j.State.LastRunStatus == StatusOK && j.State.LastRunAtMs != nil {
			if at > *j.State.LastRunAtMs {
				return at, true
			}
			return 0, false
		}
		return at, true
	}
	if n, ok := staggeredNext(j, now); ok {
		return n, true
	}
	return staggeredNext(j, (now/1000)*1000+1000)
}

// errorBackoffMs is the wait after consecutive errors: 30 s, 1 m, 5 m,
// 15 m, then 60 m.
var errorBackoffMs = [...]int64{30_000, 60_000, 300_000, 900_000, 3_600_000}

func backoff(consecutiveErrors int) int64 {
	i := min(max(consecutiveErrors, 1)-1, len(errorBackoffMs)-1)
	return errorBackoffMs[i]
}

// minRefireGapMs keeps a cron job from firing again within 2 s of the end
// of its last run (no spin loops on a clock step).
const minRefireGapMs = 2000
