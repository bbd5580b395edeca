package schemacheck

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Numbers are compared exactly, as decimal values: a float64 instance stands
// for its shortest decimal form (0.1 is 1/10, not the binary fraction), so
// {"maximum": 0.1} accepts 0.1 whichever way the instance was decoded.
// Comparisons work on the decimal digits and never build big numbers, so a
// value like 1e999999 costs no more than 1.

// decimal is a number as ±0.digits × 10^exp, digits without leading or
// trailing zeros; zero has no digits.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

const maxExp = 1 << 50 // exponents are clamped here; nothing real is near

// parseDecimal reads a JSON number ("-12.5e3").
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" {
		return d, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if frac = s[fs:i]; frac == "" {
			return d, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e < maxExp {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return d, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return d, false
	}
	digits := intPart + frac
	exp := int64(len(intPart)) + e
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return decimal{}, true
	}
	d.digits, d.exp = digits, clamp(exp-int64(lead))
	return d, true
}

func clamp(e int64) int64 {
	if e > maxExp {
		return maxExp
	}
	if e < -maxExp {
		return -maxExp
	}
	return e
}

// decimalOf converts a JSON number value.
func decimalOf(v any) (decimal, bool) {
	switch t := v.(type) {
	case json.Number:
		return parseDecimal(string(t))
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return decimal{}, false
		}
		return parseDecimal(strconv.FormatFloat(t, 'e', -1, 64))
	case float32:
		return decimalOf(float64(t))
	case int:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int8:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int16:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int32:
		return parseDecimal(strconv.FormatInt(int64(t), 10))
	case int64:
		return parseDecimal(strconv.FormatInt(t, 10))
	case uint:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint8:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint16:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint32:
		return parseDecimal(strconv.FormatUint(uint64(t), 10))
	case uint64:
		return parseDecimal(strconv.FormatUint(t, 10))
	}
	return decimal{}, false
}

func (d decimal) isZero() bool { return d.digits == "" }

func (d decimal) isInteger() bool { return d.isZero() || d.exp >= int64(len(d.digits)) }

// cmp returns the sign of d - o.
func (d decimal) cmp(o decimal) int {
	ds, os := d.sign(), o.sign()
	if ds != os {
		if ds < os {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	m := d.cmpMagnitude(o)
	if ds < 0 {
		return -m
	}
	return m
}

func (d decimal) sign() int {
	switch {
	case d.isZero():
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d decimal) cmpMagnitude(o decimal) int {
	switch {
	case d.exp < o.exp:
		return -1
	case d.exp > o.exp:
		return 1
	}
	// Same magnitude: compare digits; with no trailing zeros a proper
	// prefix is the smaller number.
	return strings.Compare(d.digits, o.digits)
}

// key is a canonical text: equal numbers have equal keys.
func (d decimal) key() string {
	if d.isZero() {
		return "0"
	}
	s := "+"
	if d.neg {
		s = "-"
	}
	return s + d.digits + "e" + strconv.FormatInt(d.exp, 10)
}

// rat converts to an exact rational; false when the exponent is beyond
// what is worth computing.
func (d decimal) rat() (*big.Rat, bool) {
	if d.isZero() {
		return new(big.Rat), true
	}
	if d.exp > 10000 || d.exp < -10000 {
		return nil, false
	}
	s := "0." + d.digits + "e" + strconv.FormatInt(d.exp, 10)
	if d.neg {
		s = "-" + s
	}
	return new(big.Rat).SetString(s)
}

// smallInt returns v as an int64 when it is a plain integer that needs no
// parsing into digits.
func smallInt(v any) (int64, bool) {
	switch t := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(t), 10, 64)
		return i, err == nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) <= 1<<53 {
			return int64(t), true
		}
	case int:
		return int64(t), true
	case int64:
		return t, true
	case int32:
		return int64(t), true
	}
	return 0, false
}

// isInteger reports whether the number v has a zero fraction.
func isInteger(v any) bool {
	if _, ok := smallInt(v); ok {
		return true
	}
	if f, ok := v.(float64); ok {
		return f == math.Trunc(f)
	}
	d, ok := decimalOf(v)
	return ok && d.isInteger()
}

// compareLimit returns the sign of v - l.
func compareLimit(v any, l *limit) int {
	if l.small {
		if i, ok := smallInt(v); ok {
			switch {
			case i < l.i:
				return -1
			case i > l.i:
				return 1
			}
			return 0
		}
	}
	d, _ := decimalOf(v)
	return d.cmp(l.dec)
}

// numbersEqual compares two JSON numbers exactly.
func numbersEqual(a, b any) bool {
	if x, ok := a.(json.Number); ok {
		if y, ok := b.(json.Number); ok && x == y {
			return true
		}
	}
	if x, ok := a.(float64); ok {
		if y, ok := b.(float64); ok {
			return x == y
		}
	}
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			return x == y
		}
	}
	da, ok1 := decimalOf(a)
	db, ok2 := decimalOf(b)
	return ok1 && ok2 && da.cmp(db) == 0
}

// isMultiple reports whether v is an integer multiple of m.
func isMultiple(v any, m *big.Rat) bool {
	d, ok := decimalOf(v)
	if !ok {
		return false
	}
	if d.isZero() {
		return true
	}
	if r, ok := d.rat(); ok {
		return new(big.Rat).Quo(r, m).IsInt()
	}
	if d.exp < 0 {
		return false // |v| < 1e-10000: smaller than any step a schema uses
	}
	// v = D·10^E with E > 9000: v/m = D·10^E·q/p is an integer iff p divides
	// D·10^E, i.e. iff p without its factors 2 and 5 divides D (E exceeds
	// any power of 2 or 5 in a schema's p).
	p := new(big.Int).Set(m.Num())
	p.Abs(p)
	for _, f := range []int64{2, 5} {
		fb, r := big.NewInt(f), new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(p, fb, r)
			if rem.Sign() != 0 {
				break
			}
			p = q
		}
	}
	D, _ := new(big.Int).SetString(d.digits, 10)
	return new(big.Int).Rem(D, p).Sign() == 0
}
