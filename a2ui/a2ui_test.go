package a2ui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const (
	su = `{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`
	br = `{"beginRendering":{"surfaceId":"main","root":"t"}}`
	dm = `{"dataModelUpdate":{"surfaceId":"main","path":"/user","contents":[{"key":"name","valueString":"Ada"}]}}`
	ds = `{"deleteSurface":{"surfaceId":"main"}}`
	cs = `{"createSurface":{"surfaceId":"main","catalogId":"c"}}`
	v9 = `{"version":"v0.9","updateComponents":{"surfaceId":"main","components":[{"id":"t","component":"Text"}]}}`
)

func TestValidateTable(t *testing.T) {
	keys := "(beginRendering, surfaceUpdate, dataModelUpdate, deleteSurface, createSurface)"
	cases := []struct {
		name, in string
		version  string // "" = invalid
		count    int
		msg      string // the whole error message
	}{
		{"v08 file", su + "\n" + dm + "\n" + br + "\n" + ds, V08, 4, ""},
		{"blank lines and CRLF skipped", "\r\n" + su + "\r\n\r\n  \t\n" + br + "\r\n", V08, 2, ""},
		{"BOM and unicode spaces trimmed", "\uFEFF" + su + "\u00a0\n" + br, V08, 2, ""},
		{"createSurface is v0.9", cs, V09, 1, ""},
		{"explicit version v0.9", v9 + "\n" + cs, V09, 2, ""},
		{"empty file", "", "", 0, "Invalid A2UI JSONL:\n- no JSONL messages found"},
		{"only blank lines", "\n \n\t\r\n", "", 0, "Invalid A2UI JSONL:\n- no JSONL messages found"},
		{"mixed", su + "\n" + cs, "", 0, "Invalid A2UI JSONL:\n- mixed A2UI v0.8 and v0.9 messages in one file"},
		{"array line", "[1,2]", "", 0, "Invalid A2UI JSONL:\n- line 1: expected JSON object"},
		{"null line", "null", "", 0, "Invalid A2UI JSONL:\n- line 1: expected JSON object"},
		{"string line", `"surfaceUpdate"`, "", 0, "Invalid A2UI JSONL:\n- line 1: expected JSON object"},
		{"no action key", `{"text":"Medical History Form","style":"title"}`, "", 0, "Invalid A2UI JSONL:\n- line 1: expected exactly one action key " + keys},
		{"two action keys", `{"surfaceUpdate":{"surfaceId":"a","components":[]},"beginRendering":{"surfaceId":"a","root":"r"}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: expected exactly one action key " + keys},
		{"line numbers count blank lines", su + "\n\n{oops}\n" + br + "\n42", "", 0,
			"Invalid A2UI JSONL:\n- line 3: invalid JSON: invalid character 'o' looking for beginning of object key string\n- line 5: expected JSON object"},
		{"trailing garbage", su + "x", "", 0, "Invalid A2UI JSONL:\n- line 1: invalid JSON: invalid character 'x' after top-level value"},
		{"version v0.8 refused", `{"version":"v0.8","surfaceUpdate":{"surfaceId":"a","components":[]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: A2UI v0.8 messages must not include a version field"},
		{"unknown version", `{"version":"v1","createSurface":{}}`, "", 0, `Invalid A2UI JSONL:` + "\n" + `- line 1: unsupported A2UI version: "v1"`},
		{"v0.9 without its key", `{"version":"v0.9","surfaceUpdate":{}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: expected exactly one v0.9 action key (createSurface, updateComponents, updateDataModel, deleteSurface)"},
		{"payload not an object", `{"deleteSurface":"main"}`, "", 0, "Invalid A2UI JSONL:\n- line 1: action payload must be an object"},
		{"no surface id", `{"deleteSurface":{}}`, "", 0, "Invalid A2UI JSONL:\n- line 1: deleteSurface.surfaceId must be a non-empty string"},
		{"components not an array", `{"surfaceUpdate":{"surfaceId":"a","components":{}}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: surfaceUpdate.components must be an array"},
		{"component without id", `{"surfaceUpdate":{"surfaceId":"a","components":[{"component":{"Text":{}}}]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: surfaceUpdate.components[0].id must be a non-empty string"},
		{"v0.9 style component", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":"Text"}]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: surfaceUpdate.components[0].component must name exactly one component type, as {\"Text\":{...}}"},
		{"two component types", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":{"Text":{},"Row":{}}}]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: surfaceUpdate.components[0].component must name exactly one component type, as {\"Text\":{...}}"},
		{"props not an object", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":{"Text":1}}]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: surfaceUpdate.components[0].component's properties must be an object"},
		{"no root", `{"beginRendering":{"surfaceId":"a"}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: beginRendering.root must be a non-empty string (a component id)"},
		{"contents missing", `{"dataModelUpdate":{"surfaceId":"a"}}`, "", 0, "Invalid A2UI JSONL:\n- line 1: dataModelUpdate.contents must be an array"},
		{"entry without key", `{"dataModelUpdate":{"surfaceId":"a","contents":[{"valueString":"x"}]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: dataModelUpdate.contents[0].key must be a string"},
		{"path not a string", `{"dataModelUpdate":{"surfaceId":"a","path":3,"contents":[]}}`, "", 0,
			"Invalid A2UI JSONL:\n- line 1: dataModelUpdate.path must be a string"},
		{"errors and mixing together", "[]\n" + su + "\n" + cs, "", 0,
			"Invalid A2UI JSONL:\n- line 1: expected JSON object\n- mixed A2UI v0.8 and v0.9 messages in one file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Validate(c.in)
			if c.version == "" {
				if err == nil {
					t.Fatalf("accepted: %+v", res)
				}
				if err.Error() != c.msg {
					t.Fatalf("message:\n%s\nwant:\n%s", err, c.msg)
				}
				var e *Error
				if !errors.As(err, &e) || len(e.Issues) == 0 {
					t.Fatalf("not an *Error with issues: %#v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Version != c.version || res.MessageCount != c.count || len(res.Messages) != c.count {
				t.Fatalf("got %s %d (%d messages), want %s %d", res.Version, res.MessageCount, len(res.Messages), c.version, c.count)
			}
			for _, m := range res.Messages {
				if !json.Valid(m) {
					t.Fatalf("message not JSON: %s", m)
				}
			}
		})
	}
}

func TestValidateSupportedRefusesV09PerLine(t *testing.T) {
	_, err := ValidateSupported(cs + "\n\n" + v9)
	want := UnsupportedV09 +
		"\n- line 1: A2UI v0.9 message (v0.8 has surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface)" +
		"\n- line 3: A2UI v0.9 message (v0.8 has surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if UnsupportedV09 != "Detected A2UI v0.9 JSONL (createSurface). OpenClaw currently supports v0.8 only." {
		t.Fatal("the refusal is the original's sentence")
	}
	res, err := ValidateSupported(su + "\n" + br)
	if err != nil || res.Version != V08 || res.MessageCount != 2 {
		t.Fatalf("v0.8: %+v %v", res, err)
	}
	if _, err := ValidateSupported(""); err == nil || !strings.HasPrefix(err.Error(), "Invalid A2UI JSONL:") {
		t.Fatalf("empty: %v", err)
	}
}

func TestIssuesAreCapped(t *testing.T) {
	in := strings.Repeat("[]\n", 500)
	_, err := Validate(in)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	if len(e.Issues) != maxIssues+1 || e.Issues[maxIssues] != "... and 450 more" {
		t.Fatalf("%d issues, last %q", len(e.Issues), e.Issues[len(e.Issues)-1])
	}
	if e.Issues[49] != "line 50: expected JSON object" {
		t.Fatalf("50th: %q", e.Issues[49])
	}
}

// The spec's two lines, byte for byte.
func TestTextJSONL(t *testing.T) {
	want := `{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"root","component":{"Column":{"children":{"explicitList":["text"]}}}},{"id":"text","component":{"Text":{"text":{"literalString":"Hello"},"usageHint":"body"}}}]}}` + "\n" +
		`{"beginRendering":{"surfaceId":"main","root":"root"}}`
	if got := TextJSONL("Hello"); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// JSON.stringify's escaping: quotes, backslash, controls; <, >, & and
	// non-ASCII as they are.
	for in, lit := range map[string]string{
		`say "hi"\now`:    `"say \"hi\"\\now"`,
		"a\nb\tc\x01\x1f": `"a\nb\tc\u0001\u001f"`,
		"<b>&</b> é 😀":    `"<b>&</b> é 😀"`,
		"\xff":            `"` + "\uFFFD" + `"`,
		"\b\f\r":          `"\b\f\r"`,
	} {
		got := TextJSONL(in)
		if !strings.Contains(got, `{"literalString":`+lit+`}`) {
			t.Errorf("%q: %s", in, got)
		}
		res, err := ValidateSupported(got)
		if err != nil || res.MessageCount != 2 {
			t.Errorf("%q: own output invalid: %v", in, err)
		}
		var m struct {
			SurfaceUpdate struct {
				Components []struct {
					Component struct {
						Text *struct {
							Text struct {
								LiteralString string `json:"literalString"`
							} `json:"text"`
						} `json:"Text"`
					} `json:"component"`
				} `json:"components"`
			} `json:"surfaceUpdate"`
		}
		first, _, _ := strings.Cut(got, "\n")
		if err := json.Unmarshal([]byte(first), &m); err != nil {
			t.Fatal(err)
		}
		if in != "\xff" && m.SurfaceUpdate.Components[1].Component.Text.Text.LiteralString != in {
			t.Errorf("%q round trip: %q", in, m.SurfaceUpdate.Components[1].Component.Text.Text.LiteralString)
		}
	}
}

// FuzzValidate: never panics; an accepted file has as many messages as
// non-blank lines, each a JSON object with one action key; an error always
// starts with the header.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{su + "\n" + br, cs, v9, "", "[]", "{", dm + "\r\n" + ds, TextJSONL("x"), `{"version":"v0.9"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Validate(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Invalid A2UI JSONL:\n- ") {
				t.Fatalf("error without header: %q", err)
			}
			return
		}
		if res.MessageCount == 0 || len(res.Messages) != res.MessageCount {
			t.Fatalf("accepted with %d messages, %d kept", res.MessageCount, len(res.Messages))
		}
		for _, m := range res.Messages {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(m, &obj); err != nil || obj == nil {
				t.Fatalf("accepted a non-object %q", m)
			}
		}
		if _, err := ValidateSupported(in); (err == nil) != (res.Version == V08) {
			t.Fatalf("ValidateSupported disagrees for %s: %v", res.Version, err)
		}
	})
}

// BenchmarkValidate: a 1,000-message file (surface updates with five
// components, data updates, beginRendering).
func BenchmarkValidate(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		switch i % 3 {
		case 0:
			sb.WriteString(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"root","component":{"Column":{"children":{"explicitList":["a","b","c","d"]}}}},{"id":"a","component":{"Text":{"text":{"literalString":"Hello"},"usageHint":"h1"}}},{"id":"b","component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/form/name"}}}},{"id":"c","component":{"CheckBox":{"label":{"literalString":"OK"},"value":{"path":"/form/ok"}}}},{"id":"d","component":{"Button":{"child":"a","action":{"name":"go"}}}}]}}`)
		case 1:
			sb.WriteString(dm)
		default:
			sb.WriteString(br)
		}
		sb.WriteByte('\n')
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ValidateSupported(in); err != nil {
			b.Fatal(err)
		}
	}
}
