package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// RFC 7396 Appendix A.
func TestMergePatchRFC7396(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// RFC 7396 section 3 example.
		{
			`{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}`,
			`{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}`,
			`{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.target+"+"+tt.patch, func(t *testing.T) {
			target, patch := decodeJSON(t, tt.target), decodeJSON(t, tt.patch)
			got := MergePatch(target, patch)
			if want := decodeJSON(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if !reflect.DeepEqual(target, decodeJSON(t, tt.target)) || !reflect.DeepEqual(patch, decodeJSON(t, tt.patch)) {
				t.Error("inputs were mutated")
			}
		})
	}
}

func TestMergePatchDoesNotAlias(t *testing.T) {
	target := map[string]any{"a": map[string]any{"x": 1.0}, "l": []any{1.0}}
	patch := map[string]any{"b": map[string]any{"y": 2.0}}
	got := MergePatch(target, patch).(map[string]any)
	got["a"].(map[string]any)["x"] = 9.0
	got["l"].([]any)[0] = 9.0
	got["b"].(map[string]any)["y"] = 9.0
	if target["a"].(map[string]any)["x"] != 1.0 || target["l"].([]any)[0] != 1.0 || patch["b"].(map[string]any)["y"] != 2.0 {
		t.Fatal("result aliases an input")
	}
}

func TestChangedPaths(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                []string
	}{
		{"same", `{"a":{"b":1}}`, `{"a":{"b":1}}`, nil},
		{"leaf change", `{"gateway":{"port":1,"bind":"lan"}}`, `{"gateway":{"port":2,"bind":"lan"}}`, []string{"gateway.port"}},
		{"added subtree reports leaves", `{}`, `{"tools":{"fs":{"workspaceOnly":true},"deny":["x"]}}`, []string{"tools.deny", "tools.fs.workspaceOnly"}},
		{"removed", `{"a":1,"b":{"c":2}}`, `{}`, []string{"a", "b.c"}},
		{"array is compared whole", `{"a":[1,2]}`, `{"a":[1,3]}`, []string{"a"}},
		{"object replaced by scalar", `{"a":{"b":1}}`, `{"a":5}`, []string{"a"}},
		{"empty object added", `{}`, `{"a":{}}`, []string{"a"}},
		{"dotted key quoted", `{}`, `{"p":{"openai/gpt-5.2":true}}`, []string{`p["openai/gpt-5.2"]`}},
		{"sorted", `{"z":1,"a":1}`, `{"z":2,"a":2}`, []string{"a", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChangedPaths(decodeJSON(t, tt.before), decodeJSON(t, tt.after))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzMergePatch(f *testing.F) {
	f.Add(`{"a":"b"}`, `{"a":null}`)
	f.Add(`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`)
	f.Add(`[1,2]`, `{"a":"b","c":null}`)
	f.Add(`{}`, `{"a":{"bb":{"ccc":null}}}`)
	f.Add(`null`, `[]`)
	f.Fuzz(func(t *testing.T, a, b string) {
		var target, patch any
		if json.Unmarshal([]byte(a), &target) != nil || json.Unmarshal([]byte(b), &patch) != nil {
			return
		}
		before, _ := json.Marshal(target)
		got := MergePatch(target, patch)
		after, _ := json.Marshal(target)
		if string(before) != string(after) {
			t.Fatal("target mutated")
		}
		// Applying the same patch again changes nothing (merge patches are idempotent).
		if again := MergePatch(got, patch); !reflect.DeepEqual(again, got) {
			t.Fatalf("not idempotent: %v then %v", got, again)
		}
		// No null member of an object patch survives into the result.
		if pm, ok := patch.(map[string]any); ok {
			gm := got.(map[string]any)
			for k, v := range pm {
				if _, present := gm[k]; v == nil && present {
					t.Fatalf("key %q should be deleted", k)
				}
			}
		}
		// ChangedPaths must not panic and is empty for identical values.
		if ch := ChangedPaths(got, deepCopy(got)); len(ch) != 0 {
			t.Fatalf("identical values differ at %v", ch)
		}
		_ = ChangedPaths(target, got)
	})
}
