package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Typed adapts a handler that takes decoded params. Invoke has parsed the
// params once, to validate them against the schema; P is filled from that
// decoded value (with encoding/json's field rules, see assign.go) rather
// than by parsing the bytes again. Called outside Invoke, or for a P with
// a custom unmarshaler, it decodes the bytes with encoding/json.
//
// A field of interface type (any, map[string]any) receives numbers as
// json.Number, as with json.Decoder.UseNumber: the value Invoke validated.
//
//	Run: tools.Typed(func(ctx context.Context, env *tools.Env, p readParams) (any, error) { … })
func Typed[P any](run func(ctx context.Context, env *Env, p P) (any, error)) Handler {
	compiled := sync.OnceValues(func() (plan, []objectField) {
		t := reflect.TypeFor[P]()
		p, ok := compilePlan(t)
		if !ok {
			return nil, nil
		}
		return p, objectFields(t)
	})
	return func(ctx context.Context, env *Env, params json.RawMessage) (any, error) {
		var p P
		pl, objects := compiled()
		if in := env.paramsFor(params); in != nil && pl != nil {
			if err := pl(reflect.ValueOf(&p).Elem(), in.value); err != nil {
				return nil, Errorf(CodeInvalidParams, "invalid params: %v", err)
			}
			if len(objects) > 0 {
				fillObjectBytes(reflect.ValueOf(&p).Elem(), objects, params)
			}
			return run(ctx, env, p)
		}
		if len(params) > 0 && string(params) != "{}" { // the common no-params call costs nothing
			if in := env.paramsFor(params); in != nil {
				in.reg.noteDecode(in.id)
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, Errorf(CodeInvalidParams, "invalid params: %v", err)
			}
		}
		return run(ctx, env, p)
	}
}

// Object is a JSON object param handed on to another action (tools.invoke's
// args): its decoded value and, when the params came as bytes, its bytes (a
// sub-slice of them), so passing it on (Call{Args: o.Raw, Value: o.Value})
// neither parses nor encodes it again.
type Object struct {
	Value map[string]any
	Raw   json.RawMessage
}

// UnmarshalJSON keeps both forms (used when Typed decodes bytes).
func (o *Object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	o.Value, o.Raw = m, append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the bytes when it has them.
func (o Object) MarshalJSON() ([]byte, error) {
	if o.Raw != nil {
		return o.Raw, nil
	}
	return json.Marshal(o.Value)
}

// objectField is a top-level Object field of a params struct.
type objectField struct {
	index int
	name  string
}

// objectFields lists the top-level Object fields of a struct type.
func objectFields(t reflect.Type) []objectField {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []objectField
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Type == objectType {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			out = append(out, objectField{i, name})
		}
	}
	return out
}

// fillObjectBytes points each Object field's Raw at its member in params
// (a skim for the member's extent, no decoding).
func fillObjectBytes(v reflect.Value, fields []objectField, params json.RawMessage) {
	for _, f := range fields {
		o := v.Field(f.index).Addr().Interface().(*Object)
		if o.Value == nil {
			continue
		}
		if r := gjson.GetBytes(params, gjsonEscape(f.name)); r.Index > 0 && r.IsObject() {
			o.Raw = params[r.Index : r.Index+len(r.Raw)]
		}
	}
}

// gjsonEscape escapes gjson path syntax in a member name.
func gjsonEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%', '(', ')', '[', ']', '{', '}', ',', ':', '"':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// AgentFromSessionKey returns the agent id of a session key of the form
// "agent:<id>:<rest>", or "".
func AgentFromSessionKey(key string) string {
	const prefix = "agent:"
	if len(key) <= len(prefix) || key[:len(prefix)] != prefix {
		return ""
	}
	rest := key[len(prefix):]
	for i := 0; i < len(rest); i++ {
		if rest[i] == ':' {
			return rest[:i]
		}
	}
	return ""
}
