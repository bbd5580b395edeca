package cronexpr

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zones work on hosts without /usr/share/zoneinfo (the binary is static)
)

const dayMs = 86_400_000

// Schedule is an expression bound to a time zone.
type Schedule struct {
	expr *Expr
	loc  *time.Location
}

// Compile parses expr and loads tz ("" is the host's local zone, as the
// original uses the Gateway host's zone for a cron job without tz).
func Compile(expr, tz string) (*Schedule, error) {
	e, err := Parse(expr)
	if err != nil {
		return nil, err
	}
	loc, err := LoadZone(tz)
	if err != nil {
		return nil, err
	}
	return &Schedule{expr: e, loc: loc}, nil
}

// LoadZone loads an IANA zone; "" is the host's local zone.
func LoadZone(tz string) (*time.Location, error) {
	tz = strings.TrimSpace(tz)
	if tz == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "Local" {
		return nil, fmt.Errorf("invalid time zone %q: use an IANA name such as America/New_York or Europe/Stockholm", tz)
	}
	return loc, nil
}

// Expr is the parsed expression; Location the zone.
func (s *Schedule) Expr() *Expr              { return s.expr }
func (s *Schedule) Location() *time.Location { return s.loc }

// wallOf is croner's CronDate of an instant in the zone (with the instant's
// milliseconds).
func (s *Schedule) wallOf(ms int64) wall {
	t := time.UnixMilli(ms).In(s.loc)
	return wall{t.Year(), int(t.Month()) - 1, t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1e6}
}

// utcOf is Date.UTC of a wall time (croner's T, with milliseconds when given).
func utcOf(w wall) int64 {
	return time.Date(w.year, time.Month(w.month+1), w.day, w.hour, w.minute, w.second, w.ms*1e6, time.UTC).UnixMilli()
}

func sameSecond(a, b wall) bool {
	return a.year == b.year && a.month == b.month && a.day == b.day && a.hour == b.hour && a.minute == b.minute && a.second == b.second
}

// fromZone is croner's fromTZ(…, false): the instant of a wall time in the
// zone. An ambiguous wall time (a repeated hour) gives the earlier
// instant; a wall time in a gap gives an instant after it.
func (s *Schedule) fromZone(w wall) int64 {
	w.ms = 0
	t := utcOf(w)
	r := s.wallOf(t)
	r.ms = 0
	o := t + (t - utcOf(r))
	h := s.wallOf(o)
	if sameSecond(h, w) {
		u := o - 3_600_000
		if sameSecond(s.wallOf(u), w) {
			return u
		}
		return o
	}
	h.ms = 0
	l := o + t - utcOf(h)
	if sameSecond(s.wallOf(l), w) {
		return l
	}
	return max(o, l)
}

// nextRun is croner's nextRun(date): the first matching wall time after
// the instant's (to the second), as an instant.
func (s *Schedule) nextRun(ms int64) (int64, bool) {
	w := s.wallOf(ms)
	w.ms = 0
	t := time.Date(w.year, time.Month(w.month+1), w.day, w.hour, w.minute, w.second+1, 0, time.UTC)
	start := wall{t.Year(), int(t.Month()) - 1, t.Day(), t.Hour(), t.Minute(), t.Second(), 0}
	found, ok := s.expr.next(start)
	if !ok {
		return 0, false
	}
	return s.fromZone(found), true
}

func (s *Schedule) matchAt(ms int64) bool { return s.expr.matches(s.wallOf(ms)) }

func (s *Schedule) offsetAt(ms int64) int {
	_, off := time.UnixMilli(ms).In(s.loc).Zone()
	return off
}

// wallMs is the wall time as if it were UTC, milliseconds included
// (the original's resolveCronWallTimeMs).
func (s *Schedule) wallMs(ms int64) int64 { return utcOf(s.wallOf(ms)) }

// firstOccurrence is the earliest instant showing the same wall time as ms
// (the original's resolveFirstCronOccurrenceMs over
// parseOffsetlessIsoDateTimeInTimeZone); false when none does.
func (s *Schedule) firstOccurrence(ms int64) (int64, bool) {
	naive := s.wallMs(ms)
	best, found := int64(0), false
	for _, shift := range [3]int64{-dayMs, 0, dayMs} {
		probe := naive + shift
		cand := naive - (s.wallMs(probe) - probe)
		if s.wallMs(cand) == naive && (!found || cand < best) {
			best, found = cand, true
		}
	}
	return best, found
}

func (s *Schedule) nearbyTransition(now, cand int64) bool {
	on, oc := s.offsetAt(now), s.offsetAt(cand)
	return on != oc || on != s.offsetAt(now-dayMs) || oc != s.offsetAt(cand-dayMs)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// transition finds the first second at which the zone's offset differs
// from its offset at first (a binary search), or false.
func (s *Schedule) transition(first, last int64) (int64, bool) {
	before := floorDiv(min(first, last), 1000)
	after := floorDiv(max(first, last), 1000)
	prev := s.wallMs(before*1000) - before*1000
	if prev == s.wallMs(after*1000)-after*1000 {
		return 0, false
	}
	for after-before > 1 {
		mid := floorDiv(before+after, 2)
		if s.wallMs(mid*1000)-mid*1000 == prev {
			before = mid
		} else {
			after = mid
		}
	}
	return after * 1000, true
}

func (s *Schedule) runAtTransition(tr int64) (int64, bool) {
	for {
		cand := tr
		if !s.matchAt(tr) {
			n, ok := s.nextRun(tr)
			if !ok {
				return 0, false
			}
			cand = n
		}
		if s.matchAt(cand) {
			return s.firstOccurrence(cand)
		}
		nt, ok := s.transition(cand-dayMs, cand)
		if !ok || nt <= tr {
			return 0, false
		}
		tr = nt
	}
}

func (s *Schedule) resolveNext(now, next int64) (int64, bool) {
	if !s.matchAt(next) {
		tr, ok := s.transition(next-dayMs, next)
		if !ok {
			return 0, false
		}
		return s.runAtTransition(tr)
	}
	first, ok := s.firstOccurrence(next)
	if !ok || first > now {
		return first, ok
	}
	firstCur, okCur := s.firstOccurrence(now)
	repeated := okCur && firstCur < now
	start, end, overlap := now, next, next-first
	if repeated {
		start, end, overlap = firstCur, now, now-firstCur
	}
	tr, ok := s.transition(start, end)
	if !ok {
		return 0, false
	}
	return s.runAtTransition(tr + overlap)
}

func (s *Schedule) validated(now, cand int64) (int64, bool) {
	if cand > now && !s.nearbyTransition(now, cand) {
		return cand, true
	}
	n, ok := s.resolveNext(now, cand)
	if ok && n > now {
		return n, true
	}
	return 0, false
}

// Next is the first run strictly after now (epoch ms), as the original's
// computeNextRunAtMs gives it: croner's next match, corrected around DST
// changes so that a wall time in a spring-forward gap is skipped and a
// repeated fall-back hour runs once, at its first occurrence. False when
// the expression never fires again.
func (s *Schedule) Next(now int64) (int64, bool) {
	next, ok := s.nextRun(now)
	if !ok {
		return 0, false
	}
	if n, ok := s.validated(now, next); ok {
		return n, true
	}
	if next > now {
		return 0, false
	}
	nextSecond := floorDiv(now, 1000)*1000 + 1000
	if retry, ok := s.nextRun(nextSecond); ok {
		if n, ok := s.validated(now, retry); ok {
			return n, true
		}
	}
	tomorrow := (floorDiv(now, dayMs) + 1) * dayMs
	if retry, ok := s.nextRun(tomorrow); ok {
		return s.validated(now, retry)
	}
	return 0, false
}

// NextN lists up to n successive runs after now.
func (s *Schedule) NextN(now int64, n int) []int64 {
	out := make([]int64, 0, n)
	for len(out) < n {
		next, ok := s.Next(now)
		if !ok {
			break
		}
		out = append(out, next)
		now = next
	}
	return out
}
