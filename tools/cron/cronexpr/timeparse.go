package cronexpr

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Durations and absolute times as the original parses them
// (src/cli/parse-duration.ts, src/shared/iso-time.ts, src/cron/parse.ts).

var (
	durationSingle = regexp.MustCompile(`^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$`)
	durationPart   = regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`)
)

var unitMs = map[string]float64{"ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3}

func invalidDuration(raw, reason string) error {
	value := `"` + raw + `"`
	if strings.TrimSpace(raw) == "" {
		value = "empty value"
	}
	if reason != "" {
		return fmt.Errorf("Invalid duration (%s): %s. Use values like 500ms, 30s, 5m, 2h, or 1h30m.", reason, value)
	}
	return fmt.Errorf("Invalid duration: %s. Use values like 500ms, 30s, 5m, 2h, or 1h30m.", value)
}

// ParseDuration reads 500ms, 30s, 5m, 2h, 1d and composites such as 1h30m
// (a bare number is milliseconds) into milliseconds.
func ParseDuration(raw string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	if s == "" {
		return 0, invalidDuration(raw, "empty")
	}
	total := 0.0
	if m := durationSingle.FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		unit := m[2]
		if unit == "" {
			unit = "ms"
		}
		total = v * unitMs[unit]
	} else {
		consumed := 0
		for _, loc := range durationPart.FindAllStringSubmatchIndex(s, -1) {
			if loc[0] != consumed {
				return 0, invalidDuration(raw, "each composite segment needs a unit")
			}
			v, _ := strconv.ParseFloat(s[loc[2]:loc[3]], 64)
			total += v * unitMs[s[loc[4]:loc[5]]]
			consumed = loc[1]
		}
		if consumed != len(s) || consumed == 0 {
			return 0, invalidDuration(raw, "")
		}
	}
	ms := math.Round(total)
	if math.IsInf(ms, 0) || ms > 1<<53-1 {
		return 0, invalidDuration(raw, "")
	}
	return int64(ms), nil
}

// isoAbsolute is the original's ISO_ABSOLUTE_RE.
var isoAbsolute = regexp.MustCompile(`^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$`)

// isoFields parses the calendar fields of an ISO form (no offset applied);
// ok false for a form or a calendar date that does not exist.
type isoFields struct {
	year, month, day, hour, minute, second, ms int
	hasTime                                    bool
	offset                                     string
}

func parseISOFields(raw string) (isoFields, bool) {
	m := isoAbsolute.FindStringSubmatch(raw)
	if m == nil || m[1] == "-000000" {
		return isoFields{}, false
	}
	atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
	f := isoFields{year: atoi(strings.TrimPrefix(m[1], "+")), month: atoi(m[2]), day: atoi(m[3]),
		hour: atoi(m[4]), minute: atoi(m[5]), second: atoi(m[6]), hasTime: m[4] != "", offset: m[8]}
	frac := m[7]
	if frac != "" {
		digits := (frac[1:] + "000")[:3]
		f.ms = atoi(digits)
	}
	zeroFrac := frac == "" || strings.Trim(frac[1:], "0") == ""
	endOfDay := f.hour == 24 && f.minute == 0 && f.second == 0 && zeroFrac
	h := f.hour
	if endOfDay {
		h = 0
	}
	t := time.Date(f.year, time.Month(f.month), f.day, h, f.minute, f.second, f.ms*1e6, time.UTC)
	if t.Year() != f.year || int(t.Month()) != f.month || t.Day() != f.day || t.Hour() != h ||
		t.Minute() != f.minute || t.Second() != f.second {
		return isoFields{}, false
	}
	return f, true
}

// utcMs is the fields as a UTC instant (24:00 is the next midnight).
func (f isoFields) utcMs() int64 {
	return time.Date(f.year, time.Month(f.month), f.day, f.hour, f.minute, f.second, f.ms*1e6, time.UTC).UnixMilli()
}

// ParseAbsoluteTime reads an `at` value: epoch milliseconds (all digits)
// or an ISO-8601 date or date-time; no offset means UTC.
func ParseAbsoluteTime(input string) (int64, bool) {
	raw := strings.TrimSpace(input)
	if raw == "" {
		return 0, false
	}
	if DigitsOnly(raw) {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 || n > maxDateMs {
			return 0, false
		}
		return n, true
	}
	f, ok := parseISOFields(raw)
	if !ok {
		return 0, false
	}
	ms := f.utcMs()
	if f.offset != "" && f.offset != "Z" && f.offset != "z" {
		sign := int64(1)
		if f.offset[0] == '-' {
			sign = -1
		}
		off := strings.ReplaceAll(f.offset[1:], ":", "")
		hh, _ := strconv.Atoi(off[:2])
		mm, _ := strconv.Atoi(off[2:])
		ms -= sign * int64(hh*3600+mm*60) * 1000
	}
	if ms < -maxDateMs || ms > maxDateMs {
		return 0, false
	}
	return ms, true
}

// maxDateMs is the largest JavaScript Date.
const maxDateMs = 8_640_000_000_000_000

func DigitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// IsOffsetless reports an ISO date or date-time without Z or an offset.
func IsOffsetless(raw string) bool {
	m := isoAbsolute.FindStringSubmatch(raw)
	return m != nil && m[8] == ""
}

// ParseLocalTime reads an offset-less ISO date-time as wall time in loc
// (the earliest instant showing it; false in a spring-forward gap).
func ParseLocalTime(raw string, loc *time.Location) (int64, bool) {
	f, ok := parseISOFields(raw)
	if !ok || f.offset != "" {
		return 0, false
	}
	naive := f.utcMs()
	wallMs := func(ms int64) int64 {
		t := time.UnixMilli(ms).In(loc)
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).UnixMilli()
	}
	best, found := int64(0), false
	for _, shift := range []int64{-86_400_000, 0, 86_400_000} {
		probe := naive + shift
		cand := naive - (wallMs(probe) - probe)
		if wallMs(cand) == naive && (!found || cand < best) {
			best, found = cand, true
		}
	}
	return best, found
}

// ISOString is JavaScript's toISOString.
func ISOString(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
