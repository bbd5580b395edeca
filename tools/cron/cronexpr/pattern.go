// Package cronexpr parses cron expressions and computes their next run
// times in a time zone exactly as the original OpenClaw does: its
// scheduler evaluates expressions with the croner npm package (10.0.1) and
// corrects croner's answers around daylight-saving changes in its own
// src/cron/schedule.ts. This package ports both, so the next-run times
// equal the original's for the same expression, zone and instant
// (testdata/cron/nextrun.json, computed by the original's own code, checks
// it). adhocore/gronx and robfig/cron/v3 were measured against that table
// first and fall short (testdata/cron/README.md).
//
// Expressions: 5 fields (minute hour day-of-month month day-of-week), 6
// (seconds first) or 7 (seconds first, year last); names (JAN, MON), `*`,
// `?` (as `*`, except that it does not make a day field a wildcard for the
// day-of-month/day-of-week rule), lists, ranges, `*/step` and `a-b/step`;
// `L` (last day of the month), `LW` (its last weekday), `15W` (nearest
// weekday) in day-of-month; `5#2` (second Friday), `5#L` or `5L` (last
// Friday) in day-of-week; a `+` before day-of-week makes the day fields AND
// instead of the Vixie OR; @yearly, @annually, @monthly, @weekly, @daily,
// @midnight, @hourly.
package cronexpr

import (
	"fmt"
	"strconv"
	"strings"
)

// Expr is a parsed expression (croner's CronPattern).
type Expr struct {
	src            string
	second, minute uint64 // bit i: value i
	hour           uint32
	day            uint32 // bit i: day i+1
	month          uint16 // bit i: month i+1
	dow            [7]uint8
	years          []uint64 // bit i: year i; nil for `*`
	nearest        uint32   // bit i: the weekday nearest to day i+1
	lastDay        bool     // L in day-of-month
	lastWeekday    bool     // LW
	starDOM        bool
	starDOW        bool
	and            bool // `+` before day-of-week
}

// String is the expression as written.
func (e *Expr) String() string { return e.src }

// nthBits are croner's bits for the 1st..5th occurrence of a weekday; 32
// is the last one, 63 any.
var nthBits = [5]uint8{1, 2, 4, 8, 16}

const (
	nthLast = 32
	nthAny  = 63
)

// field is one of the seven arrays croner fills while parsing.
type field struct {
	name string
	vals []uint8
}

// Parse parses an expression with croner's rules and error messages.
func Parse(pattern string) (*Expr, error) {
	p := &parser{pattern: pattern}
	return p.parse()
}

type parser struct {
	pattern string
	second  [60]uint8
	minute  [60]uint8
	hour    [24]uint8
	day     [31]uint8
	month   [12]uint8
	dow     [7]uint8
	year    []uint8 // 10000 entries when the year field is not `*`
	nearest [31]uint8

	lastDay, lastWeekday, starDOM, starDOW, starYear, and bool
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func (p *parser) parse() (*Expr, error) {
	pat := p.pattern
	if strings.Contains(pat, "@") {
		n, err := nickname(pat)
		if err != nil {
			return nil, err
		}
		pat = strings.TrimSpace(n)
	}
	parts := strings.Fields(pat)
	if len(parts) == 0 {
		parts = []string{""}
	}
	if len(parts) < 5 || len(parts) > 7 {
		return nil, errorf("CronPattern: invalid configuration format ('%s'), exactly five, six, or seven space separated parts are required.", pat)
	}
	if len(parts) == 5 {
		parts = append([]string{"0"}, parts...)
	}
	if len(parts) == 6 {
		parts = append(parts, "*")
	}
	if strings.ToUpper(parts[3]) == "LW" {
		p.lastWeekday, parts[3] = true, ""
	} else if strings.ContainsAny(parts[3], "Ll") {
		parts[3] = strings.NewReplacer("L", "", "l", "").Replace(parts[3])
		p.lastDay = true
	}
	p.starDOM = parts[3] == "*"
	p.starYear = parts[6] == "*"
	if len(parts[4]) >= 3 {
		parts[4] = replaceMonths(parts[4])
	}
	if len(parts[5]) >= 3 {
		parts[5] = replaceDays(parts[5])
	}
	if strings.HasPrefix(parts[5], "+") {
		p.and = true
		parts[5] = parts[5][1:]
		if parts[5] == "" {
			return nil, errorf("CronPattern: Day-of-week field cannot be empty after '+' modifier.")
		}
	}
	p.starDOW = parts[5] == "*"
	if strings.Contains(pat, "?") {
		for i := range parts {
			parts[i] = strings.ReplaceAll(parts[i], "?", "*")
		}
	}
	for i, s := range parts {
		if illegal(i, s) {
			return nil, errorf("CronPattern: configuration entry %d (%s) contains illegal characters.", i, s)
		}
	}
	if !p.starYear {
		p.year = make([]uint8, 10000)
	}
	steps := []struct {
		name   string
		conf   string
		offset int
		def    uint8
	}{
		{"second", parts[0], 0, 1}, {"minute", parts[1], 0, 1}, {"hour", parts[2], 0, 1},
		{"day", parts[3], -1, 1}, {"month", parts[4], -1, 1}, {"dayOfWeek", parts[5], 0, nthAny},
	}
	for _, s := range steps {
		if err := p.partToArray(s.name, s.conf, s.offset, s.def); err != nil {
			return nil, err
		}
	}
	if !p.starYear {
		if err := p.partToArray("year", parts[6], 0, 1); err != nil {
			return nil, err
		}
	}
	return p.compile(), nil
}

// nickname maps croner's predefined schedules; anything else is returned
// as it is (and then fails as a pattern).
func nickname(pat string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(pat)) {
	case "@yearly", "@annually":
		return "0 0 1 1 *", nil
	case "@monthly":
		return "0 0 1 * *", nil
	case "@weekly":
		return "0 0 * * 0", nil
	case "@daily", "@midnight":
		return "0 0 * * *", nil
	case "@hourly":
		return "0 * * * *", nil
	case "@reboot":
		return "", errorf("CronPattern: @reboot is not supported in this environment. This is an event-based trigger that requires system startup detection.")
	}
	return pat, nil
}

// illegal is croner's character check per field.
func illegal(i int, s string) bool {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '/', r == '*', r == ',', r == '-':
		case i == 3 && (r == 'W' || r == 'w' || r == 'L' || r == 'l'):
		case i == 5 && (r == '#' || r == 'L' || r == 'l'):
		default:
			return true
		}
	}
	return false
}

func replaceFold(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		old, repl := pairs[i], pairs[i+1]
		var b strings.Builder
		for {
			j := strings.Index(asciiLower(s), old)
			if j < 0 {
				b.WriteString(s)
				break
			}
			b.WriteString(s[:j])
			b.WriteString(repl)
			s = s[j+len(old):]
		}
		s = b.String()
	}
	return s
}

// asciiLower lower-cases ASCII letters only, keeping every byte where it
// was (names are matched as /mon/gi does, on ASCII).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func replaceMonths(s string) string {
	return replaceFold(s, "jan", "1", "feb", "2", "mar", "3", "apr", "4", "may", "5", "jun", "6",
		"jul", "7", "aug", "8", "sep", "9", "oct", "10", "nov", "11", "dec", "12")
}

func replaceDays(s string) string {
	return replaceFold(s, "-sun", "-7", "sun", "0", "mon", "1", "tue", "2", "wed", "3", "thu", "4", "fri", "5", "sat", "6")
}

// parseIntJS is JavaScript's parseInt(s, 10) for the strings a field can
// hold: leading digits, NaN (ok false) when there are none.
func parseIntJS(s string) (int, bool) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, false
	}
	v, err := strconv.Atoi(s[:n])
	if err != nil { // beyond int: out of every range anyway
		return 1 << 40, true
	}
	return v, true
}

func (p *parser) length(name string) int {
	switch name {
	case "second", "minute":
		return 60
	case "hour":
		return 24
	case "day", "nearestWeekdays":
		return 31
	case "month":
		return 12
	case "dayOfWeek":
		return 7
	}
	return 10000
}

func (p *parser) fill(name string, v uint8) {
	var arr []uint8
	switch name {
	case "second":
		arr = p.second[:]
	case "minute":
		arr = p.minute[:]
	case "hour":
		arr = p.hour[:]
	case "day":
		arr = p.day[:]
	case "month":
		arr = p.month[:]
	case "dayOfWeek":
		arr = p.dow[:]
	case "year":
		arr = p.year
	}
	for i := range arr {
		arr[i] = v
	}
}

// nth is the modifier after # or L in day-of-week: "" when none, "L", or
// the text after #.
type nth struct {
	set bool
	s   string
}

func (p *parser) partToArray(name, conf string, offset int, def uint8) error {
	if conf == "" && !(name == "day" && (p.lastDay || p.lastWeekday)) {
		return errorf("CronPattern: configuration entry %s (%s) is empty, check for trailing spaces.", name, conf)
	}
	if conf == "*" {
		p.fill(name, def)
		return nil
	}
	if parts := strings.Split(conf, ","); len(parts) > 1 {
		for _, part := range parts {
			if err := p.partToArray(name, part, offset, def); err != nil {
				return err
			}
		}
		return nil
	}
	hasDash, hasSlash := strings.Contains(conf, "-"), strings.Contains(conf, "/")
	switch {
	case hasDash && hasSlash:
		return p.rangeWithStep(conf, name, offset, def)
	case hasDash:
		return p.handleRange(conf, name, offset, def)
	case hasSlash:
		return p.handleStep(conf, name, offset, def)
	case conf != "":
		return p.handleNumber(conf, name, offset, def)
	}
	return nil
}

func extractNth(conf, name string) (string, nth, error) {
	if i := strings.Index(conf, "#"); i >= 0 {
		if name != "dayOfWeek" {
			return "", nth{}, errorf("CronPattern: nth (#) only allowed in day-of-week field")
		}
		rest := conf[i+1:]
		if j := strings.Index(rest, "#"); j >= 0 {
			rest = rest[:j]
		}
		return conf[:i], nth{set: true, s: rest}, nil
	}
	if strings.HasSuffix(strings.ToUpper(conf), "L") {
		if name != "dayOfWeek" {
			return "", nth{}, errorf("CronPattern: L modifier only allowed in day-of-week field (use L alone for day-of-month)")
		}
		return conf[:len(conf)-1], nth{set: true, s: "L"}, nil
	}
	return conf, nth{}, nil
}

// value is croner's `i[1] || defaultValue`: an empty modifier is falsy.
type value struct {
	def uint8
	n   nth
}

func (v value) modifier() (string, bool) { return v.n.s, v.n.set && v.n.s != "" }

func (p *parser) handleNumber(conf, name string, offset int, def uint8) error {
	s, n, err := extractNth(conf, name)
	if err != nil {
		return err
	}
	w := strings.ContainsAny(conf, "Ww")
	if name != "day" && w {
		return errorf("CronPattern: Nearest weekday modifier (W) only allowed in day-of-month.")
	}
	if w {
		name = "nearestWeekdays"
	}
	v, ok := parseIntJS(s)
	if !ok {
		return errorf("CronPattern: %s is not a number: '%s'", name, conf)
	}
	return p.setPart(name, v+offset, value{def, n})
}

func (p *parser) setPart(name string, t int, v value) error {
	if name == "dayOfWeek" {
		if t == 7 {
			t = 0
		}
		if t < 0 || t > 6 {
			return errorf("CronPattern: Invalid value for dayOfWeek: %d", t)
		}
		return p.setNth(t, v)
	}
	switch name {
	case "second", "minute":
		if t < 0 || t >= 60 {
			return errorf("CronPattern: Invalid value for %s: %d", name, t)
		}
	case "hour":
		if t < 0 || t >= 24 {
			return errorf("CronPattern: Invalid value for %s: %d", name, t)
		}
	case "day", "nearestWeekdays":
		if t < 0 || t >= 31 {
			return errorf("CronPattern: Invalid value for %s: %d", name, t)
		}
	case "month":
		if t < 0 || t >= 12 {
			return errorf("CronPattern: Invalid value for %s: %d", name, t)
		}
	case "year":
		if t < 1 || t >= 10000 {
			return errorf("CronPattern: Invalid value for %s: %d (supported range: 1-9999)", name, t)
		}
	}
	b := v.def
	if _, ok := v.modifier(); ok {
		b = 1 // a truthy modifier outside day-of-week cannot occur (extractNth refuses it)
	}
	switch name {
	case "second":
		p.second[t] = b
	case "minute":
		p.minute[t] = b
	case "hour":
		p.hour[t] = b
	case "day":
		p.day[t] = b
	case "nearestWeekdays":
		p.nearest[t] = b
	case "month":
		p.month[t] = b
	case "year":
		p.year[t] = b
	}
	return nil
}

// setNth is croner's setNthWeekdayOfMonth.
func (p *parser) setNth(d int, v value) error {
	mod, ok := v.modifier()
	if !ok {
		if v.def == nthAny {
			p.dow[d] = nthAny
			return nil
		}
		mod = strconv.Itoa(int(v.def))
	}
	if strings.ToUpper(mod) == "L" {
		p.dow[d] |= nthLast
		return nil
	}
	// JavaScript compares the string as a number: "2" < 6 && "2" > 0.
	n, err := strconv.ParseFloat(mod, 64)
	if err == nil && n < 6 && n > 0 && n == float64(int(n)) {
		p.dow[d] |= nthBits[int(n)-1]
		return nil
	}
	if err == nil && n < 6 && n > 0 { // a fraction: O[t-1] is undefined, |= undefined is 0
		return nil
	}
	return errorf("CronPattern: nth weekday out of range, should be 1-5 or L. Value: %s, Type: string", mod)
}

func validateRange(lower, upper int, step *int, length int, conf string) error {
	if lower > upper {
		return errorf("CronPattern: From value is larger than to value: '%s'", conf)
	}
	if step != nil {
		if *step == 0 {
			return errorf("CronPattern: Syntax error, illegal stepping: 0")
		}
		if *step > length {
			return errorf("CronPattern: Syntax error, steps cannot be greater than maximum value of part (%d)", length)
		}
	}
	return nil
}

func (p *parser) rangeWithStep(conf, name string, offset int, def uint8) error {
	if strings.ContainsAny(conf, "Ww") {
		return errorf("CronPattern: Syntax error, W is not allowed in ranges with stepping.")
	}
	s, n, err := extractNth(conf, name)
	if err != nil {
		return err
	}
	// ^(\d+)-(\d+)\/(\d+)$
	dash := strings.IndexByte(s, '-')
	slash := strings.IndexByte(s, '/')
	if dash <= 0 || slash <= dash+1 || slash == len(s)-1 || !digits(s[:dash]) || !digits(s[dash+1:slash]) || !digits(s[slash+1:]) {
		return errorf("CronPattern: Syntax error, illegal range with stepping: '%s'", conf)
	}
	lo, _ := parseIntJS(s[:dash])
	hi, _ := parseIntJS(s[dash+1 : slash])
	step, _ := parseIntJS(s[slash+1:])
	lo, hi = lo+offset, hi+offset
	if err := validateRange(lo, hi, &step, p.length(name), conf); err != nil {
		return err
	}
	for c := lo; c <= hi; c += step {
		if err := p.setPart(name, c, value{def, n}); err != nil {
			return err
		}
	}
	return nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func (p *parser) handleRange(conf, name string, offset int, def uint8) error {
	if strings.ContainsAny(conf, "Ww") {
		return errorf("CronPattern: Syntax error, W is not allowed in a range.")
	}
	s, n, err := extractNth(conf, name)
	if err != nil {
		return err
	}
	a := strings.Split(s, "-")
	if len(a) != 2 {
		return errorf("CronPattern: Syntax error, illegal range: '%s'", conf)
	}
	lo, ok := parseIntJS(a[0])
	if !ok {
		return errorf("CronPattern: Syntax error, illegal lower range (NaN)")
	}
	hi, ok := parseIntJS(a[1])
	if !ok {
		return errorf("CronPattern: Syntax error, illegal upper range (NaN)")
	}
	lo, hi = lo+offset, hi+offset
	if err := validateRange(lo, hi, nil, p.length(name), conf); err != nil {
		return err
	}
	for l := lo; l <= hi; l++ {
		if err := p.setPart(name, l, value{def, n}); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) handleStep(conf, name string, offset int, def uint8) error {
	if strings.ContainsAny(conf, "Ww") {
		return errorf("CronPattern: Syntax error, W is not allowed in parts with stepping.")
	}
	s, n, err := extractNth(conf, name)
	if err != nil {
		return err
	}
	a := strings.Split(s, "/")
	if len(a) != 2 {
		return errorf("CronPattern: Syntax error, illegal stepping: '%s'", conf)
	}
	if a[0] == "" {
		return errorf("CronPattern: Syntax error, stepping with missing prefix ('%s') is not allowed. Use wildcard (*/step) or range (min-max/step) instead.", conf)
	}
	if a[0] != "*" {
		return errorf("CronPattern: Syntax error, stepping with numeric prefix ('%s') is not allowed. Use wildcard (*/step) or range (min-max/step) instead.", conf)
	}
	step, ok := parseIntJS(a[1])
	if !ok {
		return errorf("CronPattern: Syntax error, illegal stepping: (NaN)")
	}
	length := p.length(name)
	if err := validateRange(0, length-1, &step, length, conf); err != nil {
		return err
	}
	for l := 0; l < length; l += step {
		if err := p.setPart(name, l, value{def, n}); err != nil {
			return err
		}
	}
	return nil
}

// compile turns the arrays into bit sets.
func (p *parser) compile() *Expr {
	e := &Expr{src: p.pattern, lastDay: p.lastDay, lastWeekday: p.lastWeekday,
		starDOM: p.starDOM, starDOW: p.starDOW, and: p.and, dow: p.dow}
	for i, v := range p.second {
		if v != 0 {
			e.second |= 1 << i
		}
	}
	for i, v := range p.minute {
		if v != 0 {
			e.minute |= 1 << i
		}
	}
	for i, v := range p.hour {
		if v != 0 {
			e.hour |= 1 << i
		}
	}
	for i, v := range p.day {
		if v != 0 {
			e.day |= 1 << i
		}
	}
	for i, v := range p.nearest {
		if v != 0 {
			e.nearest |= 1 << i
		}
	}
	for i, v := range p.month {
		if v != 0 {
			e.month |= 1 << i
		}
	}
	if !p.starYear {
		e.years = make([]uint64, (len(p.year)+63)/64)
		for i, v := range p.year {
			if v != 0 {
				e.years[i/64] |= 1 << (i % 64)
			}
		}
	}
	return e
}
