package tools

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// A plan fills a Go value of one type from params Invoke has already
// decoded (map[string]any, []any, string, json.Number or float64, bool,
// nil), with encoding/json's rules, so a typed handler does not parse the
// bytes a second time. Types it does not cover (custom unmarshalers,
// arrays, non-string map keys, `,string` fields) make the whole plan
// unusable; Typed then decodes the bytes with encoding/json instead.
type plan func(dst reflect.Value, v any) error

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	objectType          = reflect.TypeFor[Object]()
)

// planner compiles plans, sharing one per type (recursive types included).
type planner struct{ byType map[reflect.Type]*plan }

// compilePlan returns the plan for t, or ok=false when t has a part the
// plans do not cover.
func compilePlan(t reflect.Type) (plan, bool) {
	p := planner{byType: map[reflect.Type]*plan{}}
	return p.compile(t)
}

func (pl *planner) compile(t reflect.Type) (plan, bool) {
	if p, ok := pl.byType[t]; ok {
		return func(dst reflect.Value, v any) error { return (*p)(dst, v) }, true // recursive type
	}
	if t == objectType {
		return assignObject, true
	}
	if t == rawMessageType || t == numberType {
		return nil, false
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil, false
	}
	slot := new(plan)
	pl.byType[t] = slot
	var p plan
	ok := true
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, false
		}
		p = assignInterface
	case reflect.String:
		p = assignString
	case reflect.Bool:
		p = assignBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p = assignInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p = assignUint
	case reflect.Float32, reflect.Float64:
		p = assignFloat
	case reflect.Pointer:
		p, ok = pl.pointer(t)
	case reflect.Slice:
		p, ok = pl.slice(t)
	case reflect.Map:
		p, ok = pl.mapOf(t)
	case reflect.Struct:
		p, ok = pl.structOf(t)
	default:
		ok = false
	}
	if !ok {
		return nil, false
	}
	*slot = p
	return p, true
}

func (pl *planner) pointer(t reflect.Type) (plan, bool) {
	elem, ok := pl.compile(t.Elem())
	if !ok {
		return nil, false
	}
	return func(dst reflect.Value, v any) error {
		if v == nil {
			dst.SetZero()
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return elem(dst.Elem(), v)
	}, true
}

func (pl *planner) slice(t reflect.Type) (plan, bool) {
	if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(unmarshalerType) &&
		!reflect.PointerTo(t.Elem()).Implements(textUnmarshalerType) {
		return assignBytes, true // base64 text, as encoding/json
	}
	elem, ok := pl.compile(t.Elem())
	if !ok {
		return nil, false
	}
	return func(dst reflect.Value, v any) error {
		if v == nil {
			dst.SetZero()
			return nil
		}
		arr, ok := v.([]any)
		if !ok {
			return typeError(v, t)
		}
		s := reflect.MakeSlice(t, len(arr), len(arr))
		for i, x := range arr {
			if err := elem(s.Index(i), x); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	}, true
}

func (pl *planner) mapOf(t reflect.Type) (plan, bool) {
	if t.Key().Kind() != reflect.String || t.Key().Implements(textUnmarshalerType) ||
		reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
		return nil, false
	}
	if t.Key() == reflect.TypeFor[string]() && t.Elem().Kind() == reflect.Interface && t.Elem().NumMethod() == 0 {
		// map[string]any (or a named one): the decoded object is that map.
		return func(dst reflect.Value, v any) error {
			if v == nil {
				dst.SetZero()
				return nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				return typeError(v, t)
			}
			dst.Set(reflect.ValueOf(m).Convert(t))
			return nil
		}, true
	}
	elem, ok := pl.compile(t.Elem())
	if !ok {
		return nil, false
	}
	return func(dst reflect.Value, v any) error {
		if v == nil {
			dst.SetZero()
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return typeError(v, t)
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(t, len(m)))
		}
		for k, x := range m {
			ev := reflect.New(t.Elem()).Elem()
			if err := elem(ev, x); err != nil {
				return err
			}
			dst.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		return nil
	}, true
}

// field is one JSON member of a struct: its name and the index path to it
// (through embedded structs).
type field struct {
	name  string
	index []int
	plan  plan
}

func (pl *planner) structOf(t reflect.Type) (plan, bool) {
	fields, ok := pl.fields(t, nil, map[reflect.Type]bool{})
	if !ok {
		return nil, false
	}
	byName := make(map[string]*field, len(fields))
	for i := range fields {
		byName[fields[i].name] = &fields[i]
	}
	return func(dst reflect.Value, v any) error {
		if v == nil {
			return nil // null leaves a struct as it is
		}
		m, ok := v.(map[string]any)
		if !ok {
			return typeError(v, t)
		}
		for k, x := range m {
			f := byName[k]
			if f == nil {
				for i := range fields { // encoding/json's case-insensitive fallback
					if strings.EqualFold(fields[i].name, k) {
						f = &fields[i]
						break
					}
				}
			}
			if f == nil {
				continue
			}
			fv, err := fieldByIndex(dst, f.index)
			if err != nil {
				return err
			}
			if err := f.plan(fv, x); err != nil {
				return fmt.Errorf("field %s: %w", f.name, err)
			}
		}
		return nil
	}, true
}

// fields lists t's JSON members as encoding/json sees them: tagged names,
// "-" skipped, unexported skipped, embedded structs promoted (a shallower
// or tagged field wins; ambiguous ones are dropped).
func (pl *planner) fields(t reflect.Type, index []int, seen map[reflect.Type]bool) ([]field, bool) {
	if seen[t] {
		return nil, true
	}
	seen[t] = true
	var out []field
	type embedded struct {
		t     reflect.Type
		index []int
	}
	var embeds []embedded
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return nil, false
		}
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embeds = append(embeds, embedded{ft, idx})
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		p, ok := pl.compile(sf.Type)
		if !ok {
			return nil, false
		}
		out = append(out, field{name: name, index: idx, plan: p})
	}
	have := map[string]bool{}
	for _, f := range out {
		have[f.name] = true
	}
	promoted := map[string]int{}
	var inner []field
	for _, e := range embeds {
		fs, ok := pl.fields(e.t, e.index, seen)
		if !ok {
			return nil, false
		}
		for _, f := range fs {
			promoted[f.name]++
			inner = append(inner, f)
		}
	}
	for _, f := range inner {
		if !have[f.name] && promoted[f.name] == 1 {
			out = append(out, f)
		}
	}
	return out, true
}

// fieldByIndex walks to a field, allocating nil embedded pointers.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, fmt.Errorf("cannot set embedded pointer to unexported struct %v", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

func assignInterface(dst reflect.Value, v any) error {
	if v == nil {
		dst.SetZero()
		return nil
	}
	dst.Set(reflect.ValueOf(v))
	return nil
}

func assignString(dst reflect.Value, v any) error {
	switch s := v.(type) {
	case nil:
		return nil
	case string:
		dst.SetString(s)
		return nil
	}
	return typeError(v, dst.Type())
}

func assignBool(dst reflect.Value, v any) error {
	switch b := v.(type) {
	case nil:
		return nil
	case bool:
		dst.SetBool(b)
		return nil
	}
	return typeError(v, dst.Type())
}

func assignInt(dst reflect.Value, v any) error {
	var n int64
	switch x := v.(type) {
	case nil:
		return nil
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return numberError(string(x), dst.Type())
		}
		n = i
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return numberError(strconv.FormatFloat(x, 'g', -1, 64), dst.Type())
		}
		n = int64(x)
	default:
		return typeError(v, dst.Type())
	}
	if dst.OverflowInt(n) {
		return numberError(strconv.FormatInt(n, 10), dst.Type())
	}
	dst.SetInt(n)
	return nil
}

func assignUint(dst reflect.Value, v any) error {
	var n uint64
	switch x := v.(type) {
	case nil:
		return nil
	case json.Number:
		u, err := strconv.ParseUint(string(x), 10, 64)
		if err != nil {
			return numberError(string(x), dst.Type())
		}
		n = u
	case float64:
		if x != math.Trunc(x) || x < 0 || x >= math.MaxUint64 {
			return numberError(strconv.FormatFloat(x, 'g', -1, 64), dst.Type())
		}
		n = uint64(x)
	default:
		return typeError(v, dst.Type())
	}
	if dst.OverflowUint(n) {
		return numberError(strconv.FormatUint(n, 10), dst.Type())
	}
	dst.SetUint(n)
	return nil
}

func assignFloat(dst reflect.Value, v any) error {
	var f float64
	switch x := v.(type) {
	case nil:
		return nil
	case json.Number:
		p, err := strconv.ParseFloat(string(x), dst.Type().Bits())
		if err != nil {
			return numberError(string(x), dst.Type())
		}
		f = p
	case float64:
		f = x
	default:
		return typeError(v, dst.Type())
	}
	if dst.OverflowFloat(f) {
		return numberError(strconv.FormatFloat(f, 'g', -1, 64), dst.Type())
	}
	dst.SetFloat(f)
	return nil
}

func assignBytes(dst reflect.Value, v any) error {
	switch s := v.(type) {
	case nil:
		dst.SetZero()
		return nil
	case string:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return err
		}
		dst.SetBytes(b)
		return nil
	}
	return typeError(v, dst.Type())
}

// assignObject fills an Object with the decoded object; Typed adds its
// bytes (see Object).
func assignObject(dst reflect.Value, v any) error {
	switch m := v.(type) {
	case nil:
		return nil
	case map[string]any:
		dst.Addr().Interface().(*Object).Value = m
		return nil
	}
	return typeError(v, objectType)
}

func typeError(v any, t reflect.Type) error {
	return fmt.Errorf("cannot unmarshal %s into Go value of type %v", jsonKind(v), t)
}

func numberError(n string, t reflect.Type) error {
	return fmt.Errorf("cannot unmarshal number %s into Go value of type %v", n, t)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
