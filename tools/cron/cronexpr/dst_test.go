package cronexpr

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The DST behaviour in several zones, stated as properties (the exact
// instants are in the original's table): a daily time that falls in a
// spring-forward gap does not run that day, and one in a repeated
// fall-back hour runs once, at its first occurrence.
func TestDSTGapsAndRepeats(t *testing.T) {
	cases := []struct {
		zone         string
		gapDay       string // local date of the spring-forward change
		gapTime      string // a wall time that does not exist that day
		repeatDay    string // local date of the fall-back change
		repeatTime   string // a wall time that happens twice that day
		firstOffsetS int    // the offset of the first occurrence (summer time)
	}{
		{"America/New_York", "2026-03-08", "02:30", "2026-11-01", "01:30", -4 * 3600},
		{"Europe/Berlin", "2026-03-29", "02:30", "2026-10-25", "02:30", 2 * 3600},
		{"Australia/Sydney", "2026-10-04", "02:30", "2026-04-05", "02:30", 11 * 3600},
		{"Australia/Lord_Howe", "2026-10-04", "02:15", "2026-04-05", "01:45", 11 * 3600},
		{"America/St_Johns", "2026-03-08", "02:30", "2026-11-01", "01:30", -150 * 60},
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		day := func(date string) time.Time {
			d, _ := time.ParseInLocation("2006-01-02", date, loc)
			return d
		}
		expr := func(hhmm string) string {
			var h, m int
			fmt.Sscanf(hhmm, "%d:%d", &h, &m)
			return fmt.Sprintf("%d %d * * *", m, h)
		}
		// Gap: from two days before, the runs skip the gap day.
		s, err := Compile(expr(c.gapTime), c.zone)
		if err != nil {
			t.Fatal(err)
		}
		runs := s.NextN(day(c.gapDay).AddDate(0, 0, -2).UnixMilli(), 3)
		var dates []string
		for _, r := range runs {
			lt := time.UnixMilli(r).In(loc)
			dates = append(dates, lt.Format("2006-01-02"))
			if lt.Format("15:04") != c.gapTime {
				t.Errorf("%s %s: a run at %s", c.zone, c.gapTime, lt)
			}
		}
		want := []string{day(c.gapDay).AddDate(0, 0, -2).Format("2006-01-02"), day(c.gapDay).AddDate(0, 0, -1).Format("2006-01-02"),
			day(c.gapDay).AddDate(0, 0, 1).Format("2006-01-02")}
		if strings.Join(dates, " ") != strings.Join(want, " ") {
			t.Errorf("%s %s across the gap: %v, want %v", c.zone, c.gapTime, dates, want)
		}
		// Repeat: from the evening before, one run on the change day, at
		// the first (summer-time) occurrence, then the next day.
		s, err = Compile(expr(c.repeatTime), c.zone)
		if err != nil {
			t.Fatal(err)
		}
		runs = s.NextN(day(c.repeatDay).Add(-3*time.Hour).UnixMilli(), 2)
		first := time.UnixMilli(runs[0]).In(loc)
		second := time.UnixMilli(runs[1]).In(loc)
		if _, off := first.Zone(); off != c.firstOffsetS || first.Format("2006-01-02 15:04") != c.repeatDay+" "+c.repeatTime {
			t.Errorf("%s %s: first run %s", c.zone, c.repeatTime, first)
		}
		if second.Format("2006-01-02") != day(c.repeatDay).AddDate(0, 0, 1).Format("2006-01-02") {
			t.Errorf("%s %s: the repeated hour ran twice: %s then %s", c.zone, c.repeatTime, first, second)
		}
	}
}

// Parse errors are croner's, word for word (the original shows them).
func TestParseErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"not a cron":        "CronPattern: invalid configuration format ('not a cron'), exactly five, six, or seven space separated parts are required.",
		"61 * * * *":        "CronPattern: Invalid value for minute: 61",
		"* * * * 8":         "CronPattern: Invalid value for dayOfWeek: 8",
		"5/2 * * * *":       "CronPattern: Syntax error, stepping with numeric prefix ('5/2') is not allowed. Use wildcard (*/step) or range (min-max/step) instead.",
		"*/0 * * * *":       "CronPattern: Syntax error, illegal stepping: 0",
		"5-1 * * * *":       "CronPattern: From value is larger than to value: '5-1'",
		"* * 15W * MON#W":   "CronPattern: configuration entry 5 (1#W) contains illegal characters.",
		"* * * * 5#6":       "CronPattern: nth weekday out of range, should be 1-5 or L. Value: 6, Type: string",
		"@reboot":           "CronPattern: @reboot is not supported in this environment. This is an event-based trigger that requires system startup detection.",
		"* * * * +":         "CronPattern: Day-of-week field cannot be empty after '+' modifier.",
		"0 0 1 * * * 0":     "CronPattern: Invalid value for year: 0 (supported range: 1-9999)",
		"* 5W * * *":        "CronPattern: configuration entry 2 (5W) contains illegal characters.",
		"* * 1-5W * *":      "CronPattern: Syntax error, W is not allowed in a range.",
		"* * * * * * * * *": "CronPattern: invalid configuration format ('* * * * * * * * *'), exactly five, six, or seven space separated parts are required.",
	} {
		_, err := Parse(expr)
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", expr, err, want)
		}
	}
}

// Whatever the input, parsing returns or fails, never panics; an
// expression that parses gives runs strictly after the start, in order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0 7 * * *", "*/15 * * * * *", "0 0 L * *", "0 9 * * 5#2", "0 12 1 * +MON", "0 0 0 1 1 * 2030",
		"@daily", "0 0 15W * *", "0 0 LW * *", "5 4 * * sun", "0 0 ? * MON", "59 23 31 12 *", "1-5/2,7 * * * 1-7/3"} {
		f.Add(s, "America/New_York", int64(1772323199500))
	}
	f.Fuzz(func(t *testing.T, expr, tz string, from int64) {
		if len(expr) > 200 {
			return
		}
		from = from % 4_000_000_000_000 // within year 2096 either way
		if from < 0 {
			from = -from
		}
		switch tz {
		case "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "UTC":
		default:
			tz = "UTC"
		}
		s, err := Compile(expr, tz)
		if err != nil {
			return
		}
		prev := from
		for _, r := range s.NextN(from, 3) {
			if r <= prev {
				t.Fatalf("%q in %s from %d: run %d not after %d", expr, tz, from, r, prev)
			}
			prev = r
		}
	})
}
