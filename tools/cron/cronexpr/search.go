package cronexpr

import (
	"math/bits"
	"time"
)

// wall is a wall-clock time in some zone (croner's CronDate fields):
// month 0-11, day 1-31.
type wall struct {
	year, month, day, hour, minute, second, ms int
}

var monthDays = [12]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func daysIn(year, month int) int {
	if month != 1 {
		return monthDays[month]
	}
	if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return 29
	}
	return 28
}

// weekday of a date, 0 = Sunday.
func weekday(year, month, day int) int {
	return int(time.Date(year, time.Month(month+1), day, 0, 0, 0, 0, time.UTC).Weekday())
}

func lastWeekdayOf(year, month int) int {
	r := daysIn(year, month)
	switch weekday(year, month, r) {
	case 0:
		return r - 2
	case 6:
		return r - 1
	}
	return r
}

func nearestWeekday(year, month, d int) int {
	n := daysIn(year, month)
	if d > n {
		return -1
	}
	switch weekday(year, month, d) {
	case 0:
		if d == n {
			return d - 2
		}
		return d + 1
	case 6:
		if d == 1 {
			return d + 2
		}
		return d - 1
	}
	return d
}

// isNth is croner's isNthWeekdayOfMonth.
func isNth(year, month, d int, v uint8) bool {
	occ := (d-1)/7 + 1
	if occ <= 5 && nthBits[occ-1]&v != 0 {
		return true
	}
	if v&nthLast != 0 {
		return d+7 > daysIn(year, month)
	}
	return false
}

// dayMatches is croner's day test (in _findMatch and match): day-of-month
// with W, L and LW, combined with day-of-week by OR (Vixie) unless either
// day field is `*` or `+` asks for AND.
func (e *Expr) dayMatches(year, month, d int) bool {
	o := e.day&(1<<(d-1)) != 0
	if !o && e.nearest != 0 {
		for n := e.nearest; n != 0; n &= n - 1 {
			c := bits.TrailingZeros32(n)
			if nw := nearestWeekday(year, month, c+1); nw != -1 && nw == d {
				o = true
				break
			}
		}
	}
	if e.lastWeekday && d == lastWeekdayOf(year, month) {
		o = true
	}
	if e.lastDay && d == daysIn(year, month) {
		o = true
	}
	if !e.starDOW {
		v := e.dow[weekday(year, month, d)]
		l := v != 0 && isNth(year, month, d, v)
		switch {
		case e.and:
			o = o && l
		case !e.starDOM:
			o = o || l
		default:
			o = o && l
		}
	}
	return o
}

func (e *Expr) yearSet(y int) bool {
	if e.years == nil {
		return true
	}
	if y < 0 || y >= 10000 {
		return false
	}
	return e.years[y/64]&(1<<(y%64)) != 0
}

// next finds the first wall time at or after w that the expression
// matches, searching as croner's recurse does (month, day, hour, minute,
// second); false past year 2999 (9999 with a year field), where croner
// gives up. Like croner, the day scan runs to day 31 whatever the month's
// length: a day-of-week that matches on a day the month lacks (the
// weekday the 30th of February would have) carries the search into the
// next month at that date, so the days it skips there are not runs.
func (e *Expr) next(w wall) (wall, bool) {
	limit := 3000
	if e.years != nil {
		limit = 10000
	}
	y, mo, d, h, mi, s := w.year, w.month, w.day, w.hour, w.minute, w.second
	for y < limit {
		if !e.yearSet(y) {
			y, mo, d, h, mi, s = y+1, 0, 1, 0, 0, 0
			continue
		}
		if e.month&(1<<mo) == 0 {
			rest := e.month >> mo
			if rest == 0 {
				y, mo, d, h, mi, s = y+1, 0, 1, 0, 0, 0
				continue
			}
			mo, d, h, mi, s = mo+bits.TrailingZeros16(rest), 1, 0, 0, 0
		}
		found := 0
		for dd := d; dd <= 31; dd++ {
			if e.dayMatches(y, mo, dd) {
				found = dd
				break
			}
		}
		if found == 0 {
			y, mo, d, h, mi, s = normalize(y, mo+1, 1, 0, 0, 0)
			continue
		}
		if found != d {
			d, h, mi, s = found, 0, 0, 0
		}
		if d > daysIn(y, mo) { // croner's apply(): on into the next month
			y, mo, d, h, mi, s = normalize(y, mo, d, 0, 0, 0)
			continue
		}
		if e.hour&(1<<h) == 0 {
			rest := e.hour >> h
			if rest == 0 {
				y, mo, d, h, mi, s = normalize(y, mo, d+1, 0, 0, 0)
				continue
			}
			h, mi, s = h+bits.TrailingZeros32(rest), 0, 0
		}
		if e.minute&(1<<mi) == 0 {
			rest := e.minute >> mi
			if rest == 0 {
				y, mo, d, h, mi, s = normalize(y, mo, d, h+1, 0, 0)
				continue
			}
			mi, s = mi+bits.TrailingZeros64(rest), 0
		}
		rest := e.second >> s
		if rest == 0 {
			y, mo, d, h, mi, s = normalize(y, mo, d, h, mi+1, 0)
			continue
		}
		return wall{y, mo, d, h, mi, s + bits.TrailingZeros64(rest), 0}, true
	}
	return wall{}, false
}

// normalize carries overflowing fields as Date.UTC does (month 0-11).
func normalize(y, mo, d, h, mi, s int) (int, int, int, int, int, int) {
	if mo < 12 && d <= 28 && h < 24 && mi < 60 && s < 60 {
		return y, mo, d, h, mi, s
	}
	t := time.Date(y, time.Month(mo+1), d, h, mi, s, 0, time.UTC)
	return t.Year(), int(t.Month()) - 1, t.Day(), t.Hour(), t.Minute(), t.Second()
}

// matches is croner's match for a wall time (milliseconds ignored).
func (e *Expr) matches(w wall) bool {
	if !e.yearSet(w.year) {
		return false
	}
	return e.second&(1<<w.second) != 0 && e.minute&(1<<w.minute) != 0 && e.hour&(1<<w.hour) != 0 &&
		e.month&(1<<w.month) != 0 && e.dayMatches(w.year, w.month, w.day)
}
