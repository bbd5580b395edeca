package config

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func posInf() float64 { return math.Inf(1) }

func TestSchemaIsValidJSON(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(Schema(), &m); err != nil {
		t.Fatal(err)
	}
	if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" || m["additionalProperties"] != false {
		t.Errorf("root = %v / %v", m["$schema"], m["additionalProperties"])
	}
	if _, _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
	// The returned bytes are a copy.
	s := Schema()
	s[0] = 'x'
	if Schema()[0] != '{' {
		t.Error("Schema() exposes the embedded bytes")
	}
}

func childKeys(res map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, c := range res["children"].([]map[string]any) {
		out[c["key"].(string)] = c
	}
	return out
}

func TestSchemaLookup(t *testing.T) {
	res, err := SchemaLookup("gateway.auth")
	if err != nil {
		t.Fatal(err)
	}
	if res["path"] != "gateway.auth" {
		t.Errorf("path = %v", res["path"])
	}
	schema := res["schema"].(map[string]any)
	if _, ok := schema["properties"]; ok {
		t.Error("schema node is not shallow")
	}
	if schema["type"] != "object" || schema["additionalProperties"] != false || schema["description"] == nil {
		t.Errorf("schema = %v", schema)
	}
	kids := childKeys(res)
	tok := kids["token"]
	if tok == nil || tok["path"] != "gateway.auth.token" || tok["required"] != false || tok["hasChildren"] != true {
		t.Errorf("token child = %v", tok)
	}
	if m := kids["mode"]; m == nil || m["type"] != "string" || m["hasChildren"] != false {
		t.Errorf("mode child = %v", m)
	}

	// Enum leaf.
	res, err = SchemaLookup("gateway.bind")
	if err != nil {
		t.Fatal(err)
	}
	if enum := res["schema"].(map[string]any)["enum"]; !reflect.DeepEqual(enum, []any{"loopback", "lan", "tailnet", "auto", "custom"}) {
		t.Errorf("enum = %v", enum)
	}
	if len(res["children"].([]map[string]any)) != 0 {
		t.Errorf("leaf has children: %v", res["children"])
	}

	// Arrays and maps: [0], [], .*, and a map key.
	for _, p := range []string{"agents.list[0]", "agents.list[]", "agents.list.*", "agents.list.3"} {
		res, err := SchemaLookup(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		id := childKeys(res)["id"]
		if id == nil || id["required"] != true {
			t.Errorf("%s: id child = %v", p, id)
		}
	}
	res, err = SchemaLookup("agents.list")
	if err != nil {
		t.Fatal(err)
	}
	if star := childKeys(res)["*"]; star == nil || star["path"] != "agents.list.*" || star["hasChildren"] != true {
		t.Errorf("agents.list children = %v", res["children"])
	}
	res, err = SchemaLookup("tools.byProvider.google")
	if err != nil {
		t.Fatal(err)
	}
	if childKeys(res)["profile"] == nil {
		t.Errorf("byProvider entry children = %v", res["children"])
	}

	// Root.
	res, err = SchemaLookup(".")
	if err != nil {
		t.Fatal(err)
	}
	if res["path"] != "." || childKeys(res)["gateway"] == nil || childKeys(res)["gateway"]["path"] != "gateway" {
		t.Errorf("root lookup = %v", res["path"])
	}
}

func TestSchemaLookupNotFound(t *testing.T) {
	for _, p := range []string{"gateway.notReal.path", "nope", "", "   ", "gateway.auth\nspoof", "constructor", "gateway.port.x"} {
		if _, err := SchemaLookup(p); err == nil || err.Error() != "config schema path not found" {
			t.Errorf("SchemaLookup(%q) err = %v", p, err)
		}
	}
}
