package config

import (
	"reflect"
	"testing"
)

// Inside array items, unknown keys are warnings at the item's [n] path
// (the item is validated with them stripped), and an issue in the first
// item is reported at [0], not as a key "0".
func TestValidateArrayItems(t *testing.T) {
	issues, warnings := Validate(map[string]any{"agents": map[string]any{"list": []any{
		map[string]any{"id": "a", "bogusKey": 1.0},
	}}})
	if len(issues) != 0 {
		t.Errorf("issues = %v, want none (unknown keys only warn)", issues)
	}
	if want := []Issue{{Path: "agents.list[0]", Message: `Unrecognized key: "bogusKey"`}}; !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings = %v, want %v", warnings, want)
	}

	issues, _ = Validate(map[string]any{"agents": map[string]any{"list": []any{
		map[string]any{"id": 5.0},
	}}})
	if len(issues) != 1 || issues[0].Path != "agents.list[0].id" {
		t.Errorf("issues = %v, want one at agents.list[0].id", issues)
	}
}
