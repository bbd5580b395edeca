package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSetPath(t *testing.T) {
	tests := []struct {
		name, doc, path string
		value           any
		want            string
		wantErr         string
	}{
		{name: "creates intermediates", doc: `{}`, path: "tools.web.fetch.maxChars", value: 1000.0,
			want: `{"tools":{"web":{"fetch":{"maxChars":1000}}}}`},
		{name: "overwrites", doc: `{"gateway":{"port":1}}`, path: "gateway.port", value: 2.0, want: `{"gateway":{"port":2}}`},
		{name: "into existing array", doc: `{"agents":{"list":[{"id":"a"},{"id":"b"}]}}`, path: "agents.list[1].name", value: "B",
			want: `{"agents":{"list":[{"id":"a"},{"id":"b","name":"B"}]}}`},
		{name: "replace array element", doc: `{"tools":{"deny":["a","b"]}}`, path: "tools.deny[0]", value: "x",
			want: `{"tools":{"deny":["x","b"]}}`},
		{name: "append at length", doc: `{"tools":{"deny":["a"]}}`, path: "tools.deny[1]", value: "b",
			want: `{"tools":{"deny":["a","b"]}}`},
		{name: "append object at length", doc: `{"agents":{"list":[]}}`, path: "agents.list[0].id", value: "main",
			want: `{"agents":{"list":[{"id":"main"}]}}`},
		{name: "quoted key", doc: `{}`, path: `tools.byProvider["openai/gpt-5.2"].profile`, value: "coding",
			want: `{"tools":{"byProvider":{"openai/gpt-5.2":{"profile":"coding"}}}}`},
		{name: "index out of range", doc: `{"a":[]}`, path: "a[3]", value: 1.0, wantErr: "out of range"},
		{name: "index into object", doc: `{"a":{}}`, path: "a[0]", value: 1.0, wantErr: "not an array"},
		{name: "no array to create", doc: `{}`, path: "a[0]", value: 1.0, wantErr: "no array"},
		{name: "through a scalar", doc: `{"a":5}`, path: "a.b", value: 1.0, wantErr: "not an object"},
		{name: "empty path", doc: `{}`, path: "", value: 1.0, wantErr: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := decodeJSON(t, tt.doc).(map[string]any)
			err := SetPath(doc, tt.path, tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := decodeJSON(t, tt.want); !reflect.DeepEqual(doc, want) {
				t.Errorf("got %v, want %v", doc, want)
			}
			cfg := &Config{Doc: doc}
			if got, ok := cfg.Get(tt.path); !ok || !reflect.DeepEqual(got, tt.value) {
				t.Errorf("Get(%s) = %v, %v", tt.path, got, ok)
			}
		})
	}
}

func TestUnsetPath(t *testing.T) {
	tests := []struct {
		name, doc, path string
		want            string
		removed         bool
	}{
		{"key", `{"gateway":{"port":1,"bind":"lan"}}`, "gateway.port", `{"gateway":{"bind":"lan"}}`, true},
		{"top-level key", `{"a":1,"b":2}`, "a", `{"b":2}`, true},
		{"absent key", `{"gateway":{}}`, "gateway.port", `{"gateway":{}}`, false},
		{"absent parent", `{}`, "gateway.auth.token", `{}`, false},
		{"array element", `{"tools":{"deny":["a","b","c"]}}`, "tools.deny[1]", `{"tools":{"deny":["a","c"]}}`, true},
		{"nested array element", `{"x":[["a","b"]]}`, "x[0][0]", `{"x":[["b"]]}`, true},
		{"array index out of range", `{"tools":{"deny":["a"]}}`, "tools.deny[5]", `{"tools":{"deny":["a"]}}`, false},
		{"key below a scalar", `{"a":1}`, "a.b", `{"a":1}`, false},
		{"key in array item", `{"agents":{"list":[{"id":"a","name":"n"}]}}`, "agents.list[0].name", `{"agents":{"list":[{"id":"a"}]}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := decodeJSON(t, tt.doc).(map[string]any)
			removed, err := UnsetPath(doc, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if removed != tt.removed {
				t.Errorf("removed = %v, want %v", removed, tt.removed)
			}
			if want := decodeJSON(t, tt.want); !reflect.DeepEqual(doc, want) {
				t.Errorf("got %v, want %v", doc, want)
			}
		})
	}
	if _, err := UnsetPath(map[string]any{}, "a[x]"); err == nil {
		t.Error("bad path should be an error")
	}
}

func TestParsePathRoundTrip(t *testing.T) {
	for _, p := range []string{"a", "a.b", "agents.list[0].id", `tools.byProvider["openai/gpt-5.2"].deny[2]`, `x["a]b"]`, `x["q\"k"].y`} {
		segs, err := ParsePath(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := FormatPath(segs); got != p {
			t.Errorf("FormatPath(ParsePath(%s)) = %s", p, got)
		}
	}
	for _, bad := range []string{"", "a[", "a[x]", "a[-1]", `a["x]`} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) should fail", bad)
		}
	}
}
