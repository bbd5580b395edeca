package config

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openclaw-go/openclaw/policy"
)

// The hand decoder must give what encoding/json gives for every field of
// policy.ToolPolicy; a field added to the type fails the count below until
// the decoder (and the document here) learn it.
func TestDecodeToolPolicyMatchesJSON(t *testing.T) {
	if n := reflect.TypeFor[policy.ToolPolicy]().NumField(); n != 6 {
		t.Fatalf("policy.ToolPolicy has %d fields; teach decodeToolPolicy the new one, then update this count", n)
	}
	docs := []string{
		`{}`,
		`{"profile":"coding"}`,
		`{"profile":"minimal","allow":["read","group:fs"],"alsoAllow":["browser"],"deny":["exec"],
		  "byProvider":{"openai/gpt-5":{"profile":"minimal","deny":["write"],"byProvider":{"x":{"allow":["*"]}}},"google":{}},
		  "loopDetection":{"enabled":true,"historySize":20,"detectors":{"pingPong":false}}}`,
		`{"allow":[],"deny":[]}`,
		`{"loopDetection":null}`,
		// Wrong types are skipped by both.
		`{"profile":3,"allow":"read","byProvider":[]}`,
	}
	for _, doc := range docs {
		var raw any
		if err := json.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatal(err)
		}
		var want, got policy.ToolPolicy
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &want)
		decodeToolPolicy(raw, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", doc, got, want)
		}
	}
}
