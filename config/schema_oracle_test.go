package config

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema.json must be a schema a complete JSON Schema 2020-12 implementation
// accepts (metaschema included), not only one the run-time validator
// (schemacheck) can compile. The library is a test-only dependency: it
// costs ~10-30 ms of package init, which the CLI must not pay.
func TestSchemaCompilesWithReferenceImplementation(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://openclaw.invalid/schemas/openclaw.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(url); err != nil {
		t.Fatalf("santhosh-tekuri/jsonschema rejects schema.json: %v", err)
	}
	if _, _, err := loadSchema(); err != nil {
		t.Fatalf("schemacheck rejects schema.json: %v", err)
	}
}

// When only one branch of a union fits the value's type, its problems are
// reported instead of a bare "Invalid input".
func TestValidateUnionBranchDetail(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want []Issue
	}{
		{`{ gateway: { auth: { token: { source: 'env' } } } }`,
			[]Issue{{"gateway.auth.token.id", "Invalid input: expected a value, received undefined"}}},
		{`{ gateway: { auth: { token: { source: 'vault', id: 'x' } } } }`,
			[]Issue{{"gateway.auth.token.source", `Invalid option: expected one of "env"|"file"|"exec"|"store"`}}},
		{`{ gateway: { auth: { token: [] } } }`,
			[]Issue{{"gateway.auth.token", "Invalid input"}}},
	} {
		issues, _ := Validate(mustJSON5(t, tt.doc).(map[string]any))
		if !reflect.DeepEqual(issues, tt.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tt.doc, issues, tt.want)
		}
	}
}
