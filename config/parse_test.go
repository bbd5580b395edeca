package config

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseJSON5(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"line comment", "{\n // hi\n a: 1 }", map[string]any{"a": 1.0}},
		{"block comment", "{ /* x */ a: 1 /* y */ }", map[string]any{"a": 1.0}},
		{"trailing commas", "{a: [1, 2,], b: 'x',}", map[string]any{"a": []any{1.0, 2.0}, "b": "x"}},
		{"unquoted and $ keys", "{$schema: 's', _x: true, 'q k': null}", map[string]any{"$schema": "s", "_x": true, "q k": nil}},
		{"single quotes with escapes", `{a: 'it\'s "ok"'}`, map[string]any{"a": `it's "ok"`}},
		{"hex and signs", "{a: 0x10, b: +1, c: .5, d: -2}", map[string]any{"a": 16.0, "b": 1.0, "c": 0.5, "d": -2.0}},
		{"plain json", `{"gateway": {"port": 18789}}`, map[string]any{"gateway": map[string]any{"port": 18789.0}}},
		{"nested", "{a: {b: {c: [{d: 1}]}}}", map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": 1.0}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSON5([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseJSON5NonFinite(t *testing.T) {
	v := mustJSON5(t, "{a: Infinity, b: -Infinity, c: NaN}").(map[string]any)
	if !math.IsInf(v["a"].(float64), 1) || !math.IsInf(v["b"].(float64), -1) || !math.IsNaN(v["c"].(float64)) {
		t.Fatalf("got %v", v)
	}
}

func TestParseJSON5Errors(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		line, col  int
		msgContain string
	}{
		{"missing comma", "{\n  a: 1\n  b: 2\n}", 3, 3, "invalid character 'b'"},
		{"unterminated", "{\n  a: [1, 2", 2, 11, "unexpected end"},
		{"garbage after", "{} x", 1, 4, "after top-level value"},
		{"empty", "", 1, 1, "unexpected end"},
		{"too deep", strings.Repeat("[", maxNesting+1), 1, maxNesting + 1, "nesting"},
		{"huge number", "{a: 1e999}", 1, 9, "out of range: 1e999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON5([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SyntaxError", err, err)
			}
			if se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msgContain) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", se.Line, se.Column, se.Msg, tt.line, tt.col, tt.msgContain)
			}
		})
	}
}

func FuzzParseJSON5(f *testing.F) {
	for _, s := range []string{
		"{}", "[]", "{a:1,}", "{'a': 'b'}", "{a: 0x1F, b: .5, c: +Infinity}", "/* c */ {a: [1,2,],}",
		`{"$include": "./x.json5"}`, "{a: NaN}", "-", "0x", "{a:'\\u00e9'}", "{a: 'x\\\ny'}", "[[[[[",
		"{a: -Infinity}", "+.e1", "'", "{a:1}//", "{a:1}/*",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON5(data)
		if err == nil {
			if _, bad := findNonFinite(v, ""); !bad {
				// whatever parses must also survive the rest of the pipeline
				_ = deepCopy(v)
				if m, ok := v.(map[string]any); ok {
					Validate(m)
					if _, err := Marshal(m); err != nil {
						t.Fatalf("marshal parsed doc: %v", err)
					}
				}
			}
		}
	})
}
