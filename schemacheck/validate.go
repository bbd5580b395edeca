package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks an instance decoded by encoding/json (numbers as
// json.Number or float64; Go integer types are accepted too) and returns
// every failure, or nil when the value is valid.
//
// Failures are leaves: a failing allOf reports its branches' failures. A
// failing anyOf or oneOf is one failure at the value's location ("must match
// at least/exactly one schema"), except when exactly one branch accepts the
// value's type: then that branch's failures are reported, because they say
// what is wrong ("missing property 'id'" rather than "matches no branch").
// Once the type, const or enum check of a schema fails, its other keywords
// are not checked for that value.
func (s *Schema) Validate(instance any) []Error {
	vd := validator{loc: make([]string, 0, 8)}
	vd.validate(s.root, instance)
	return vd.errs
}

// Valid reports whether instance is valid, stopping at the first failure.
func (s *Schema) Valid(instance any) bool {
	vd := validator{quick: true}
	return vd.validate(s.root, instance)
}

// ValidateJSON decodes data (numbers as json.Number) and validates it.
func (s *Schema) ValidateJSON(data []byte) ([]Error, error) {
	v, err := DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	return s.Validate(v), nil
}

// DecodeJSON decodes one JSON value with numbers as json.Number and rejects
// trailing data.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

type validator struct {
	loc   []string
	errs  []Error
	quick bool // only the verdict matters: record nothing, stop early
}

func (vd *validator) fail(e Error) {
	if vd.quick {
		return
	}
	if len(vd.loc) > 0 {
		e.Location = append([]string(nil), vd.loc...)
	}
	vd.errs = append(vd.errs, e)
}

// check validates quietly and reports the verdict.
func (vd *validator) check(n *node, v any) bool {
	q := vd.quick
	vd.quick = true
	ok := vd.validate(n, v)
	vd.quick = q
	return ok
}

func (vd *validator) child(n *node, v any, tok string) bool {
	vd.loc = append(vd.loc, tok)
	ok := vd.validate(n, v)
	vd.loc = vd.loc[:len(vd.loc)-1]
	return ok
}

func typeOf(v any) typeSet {
	switch t := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return 0
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) {
			return 0
		}
		return tNumber
	case json.Number:
		if _, ok := parseDecimal(string(t)); !ok {
			return 0 // not a number: only hand-made json.Numbers can be
		}
		return tNumber
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	}
	return 0
}

func typeMatches(ts typeSet, vt typeSet, v any) bool {
	return ts&vt != 0 || (vt == tNumber && ts&tInteger != 0 && isInteger(v))
}

// validate checks v against n; in full mode it records every failure and
// returns whether there was none.
func (vd *validator) validate(n *node, v any) bool {
	if n.boolean != nil {
		if !*n.boolean {
			vd.fail(Error{Kind: KindFalse})
		}
		return *n.boolean
	}
	vt := typeOf(v)
	if vt == 0 {
		vd.fail(Error{Kind: KindInvalidValue})
		return false
	}
	if n.types != 0 && !typeMatches(n.types, vt, v) {
		got := "number"
		for _, tn := range typeNames {
			if tn.t == vt {
				got = tn.name
			}
		}
		vd.fail(Error{Kind: KindType, Want: n.types.names(), Got: got})
		return false
	}
	if n.hasConst && !equal(v, n.constVal) {
		vd.fail(Error{Kind: KindConst, Values: []any{n.constVal}})
		return false
	}
	if n.enum != nil && !inEnum(v, n.enum) {
		vd.fail(Error{Kind: KindEnum, Values: n.enum})
		return false
	}
	ok := true
	bad := func(e Error) bool {
		ok = false
		vd.fail(e)
		return vd.quick
	}
	if n.ref != nil && !vd.validate(n.ref, v) {
		if ok = false; vd.quick {
			return false
		}
	}
	switch t := v.(type) {
	case map[string]any:
		if !vd.object(n, t) {
			if ok = false; vd.quick {
				return false
			}
		}
	case []any:
		if !vd.array(n, t) {
			if ok = false; vd.quick {
				return false
			}
		}
	case string:
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(t)
			if n.minLen >= 0 && l < n.minLen && bad(Error{Kind: KindMinLength, Limit: n.minLen, Actual: l}) {
				return false
			}
			if n.maxLen >= 0 && l > n.maxLen && bad(Error{Kind: KindMaxLength, Limit: n.maxLen, Actual: l}) {
				return false
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(t) && bad(Error{Kind: KindPattern, Pattern: n.pattern.String()}) {
			return false
		}
	default:
		if vt == tNumber {
			if n.minimum != nil && compareLimit(v, n.minimum) < 0 && bad(Error{Kind: KindMinimum, Bound: n.minimum.text}) {
				return false
			}
			if n.maximum != nil && compareLimit(v, n.maximum) > 0 && bad(Error{Kind: KindMaximum, Bound: n.maximum.text}) {
				return false
			}
			if n.exMinimum != nil && compareLimit(v, n.exMinimum) <= 0 && bad(Error{Kind: KindExclusiveMinimum, Bound: n.exMinimum.text}) {
				return false
			}
			if n.exMaximum != nil && compareLimit(v, n.exMaximum) >= 0 && bad(Error{Kind: KindExclusiveMaximum, Bound: n.exMaximum.text}) {
				return false
			}
			if n.multipleOf != nil && !isMultiple(v, n.multipleOf.rat) && bad(Error{Kind: KindMultipleOf, Bound: n.multipleOf.text}) {
				return false
			}
		}
	}
	if n.not != nil && vd.check(n.not, v) && bad(Error{Kind: KindNot}) {
		return false
	}
	for _, b := range n.allOf {
		if !vd.validate(b, v) {
			if ok = false; vd.quick {
				return false
			}
		}
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, b := range n.anyOf {
			if vd.check(b, v) {
				matched = true
				break
			}
		}
		if !matched {
			if ok = false; vd.quick {
				return false
			}
			vd.branchFailure(n.anyOf, v, vt, KindAnyOf)
		}
	}
	if len(n.oneOf) > 0 {
		first := -1
		for i, b := range n.oneOf {
			if !vd.check(b, v) {
				continue
			}
			if first < 0 {
				first = i
				continue
			}
			if bad(Error{Kind: KindOneOfMany, Duplicates: [2]int{first, i}}) {
				return false
			}
			first = -2
			break
		}
		if first == -1 {
			if ok = false; vd.quick {
				return false
			}
			vd.branchFailure(n.oneOf, v, vt, KindOneOf)
		}
	}
	return ok
}

// branchFailure reports an anyOf/oneOf that no branch accepted: the one
// branch for the value's type in detail, or else one failure here.
func (vd *validator) branchFailure(branches []*node, v any, vt typeSet, k Kind) {
	var only *node
	for _, b := range branches {
		if acceptsType(b, v, vt) {
			if only != nil {
				vd.fail(Error{Kind: k})
				return
			}
			only = b
		}
	}
	if only == nil {
		vd.fail(Error{Kind: k})
		return
	}
	vd.validate(only, v)
}

// acceptsType reports whether a branch's type keyword (its own, or if it
// has none, that of the schema its $ref points to) admits the value.
// Branches that say nothing about types admit every value.
func acceptsType(n *node, v any, vt typeSet) bool {
	for i := 0; i < 64 && n != nil; i++ {
		if n.boolean != nil {
			return true
		}
		if n.types != 0 {
			return typeMatches(n.types, vt, v)
		}
		n = n.ref
	}
	return true
}

func (vd *validator) object(n *node, obj map[string]any) bool {
	ok := true
	if n.minProps >= 0 && len(obj) < n.minProps {
		if ok = false; vd.quick {
			return false
		}
		vd.fail(Error{Kind: KindMinProperties, Limit: n.minProps, Actual: len(obj)})
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		if ok = false; vd.quick {
			return false
		}
		vd.fail(Error{Kind: KindMaxProperties, Limit: n.maxProps, Actual: len(obj)})
	}
	for _, r := range n.required {
		if _, has := obj[r]; !has {
			if ok = false; vd.quick {
				return false
			}
			vd.fail(Error{Kind: KindRequired, Property: r})
		}
	}
	if n.props == nil && n.patterns == nil && n.additional == nil {
		return ok
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	if !vd.quick {
		sort.Strings(keys)
	}
	for _, k := range keys {
		val := obj[k]
		evaluated := false
		if p, has := n.props[k]; has {
			evaluated = true
			if !vd.child(p, val, k) {
				if ok = false; vd.quick {
					return false
				}
			}
		}
		for _, pp := range n.patterns {
			if pp.re.MatchString(k) {
				evaluated = true
				if !vd.child(pp.node, val, k) {
					if ok = false; vd.quick {
						return false
					}
				}
			}
		}
		if evaluated || n.additional == nil {
			continue
		}
		if a := n.additional; a.boolean != nil {
			if !*a.boolean {
				if ok = false; vd.quick {
					return false
				}
				vd.fail(Error{Kind: KindAdditional, Property: k})
			}
			continue
		}
		if !vd.child(n.additional, val, k) {
			if ok = false; vd.quick {
				return false
			}
		}
	}
	return ok
}

func (vd *validator) array(n *node, arr []any) bool {
	ok := true
	if n.minItems >= 0 && len(arr) < n.minItems {
		if ok = false; vd.quick {
			return false
		}
		vd.fail(Error{Kind: KindMinItems, Limit: n.minItems, Actual: len(arr)})
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		if ok = false; vd.quick {
			return false
		}
		vd.fail(Error{Kind: KindMaxItems, Limit: n.maxItems, Actual: len(arr)})
	}
	if n.unique && len(arr) > 1 {
		if i, j := duplicates(arr); j >= 0 {
			if ok = false; vd.quick {
				return false
			}
			vd.fail(Error{Kind: KindUniqueItems, Duplicates: [2]int{i, j}})
		}
	}
	for i, item := range arr {
		var sch *node
		if i < len(n.prefixItems) {
			sch = n.prefixItems[i]
		} else if n.items != nil {
			sch = n.items
		} else {
			break
		}
		if !vd.child(sch, item, strconv.Itoa(i)) {
			if ok = false; vd.quick {
				return false
			}
		}
	}
	return ok
}

// equal is JSON equality: numbers by value, objects regardless of key order.
func equal(a, b any) bool {
	ta, tb := typeOf(a), typeOf(b)
	if ta != tb || ta == 0 {
		return false
	}
	switch x := a.(type) {
	case nil:
		return true
	case bool:
		return x == b.(bool)
	case string:
		return x == b.(string)
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return numbersEqual(a, b)
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if equal(v, e) {
			return true
		}
	}
	return false
}

// duplicates returns the first pair i < j of equal items (smallest j, then
// smallest i), or -1, -1.
func duplicates(arr []any) (int, int) {
	if len(arr) <= 20 {
		for j := 1; j < len(arr); j++ {
			for i := 0; i < j; i++ {
				if equal(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, len(arr))
	var b strings.Builder
	for j, item := range arr {
		b.Reset()
		canonical(&b, item)
		k := b.String()
		if i, dup := seen[k]; dup {
			return i, j
		}
		seen[k] = j
	}
	return -1, -1
}

// canonical writes a key that is equal for JSON-equal values.
func canonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			canonical(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		d, _ := decimalOf(v)
		b.WriteString("#" + d.key())
	}
}
