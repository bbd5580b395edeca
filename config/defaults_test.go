package config

import "testing"

func TestSchemaDefaultsAndSuggestions(t *testing.T) {
	if v, ok := SchemaDefault("gateway.port"); !ok || v != 18789.0 {
		t.Errorf("gateway.port default = %v %v", v, ok)
	}
	if v, ok := SchemaDefault("gateway.bind"); !ok || v != "loopback" {
		t.Errorf("gateway.bind default = %v %v", v, ok)
	}
	if _, ok := SchemaDefault("gateway.auth.token"); ok {
		t.Errorf("gateway.auth.token has a default")
	}
	for _, p := range []string{"gateway.port", "agents.list[0].id", "tools.profile", `models.providers["local"].apiKey`} {
		if !KnownPath(p) {
			t.Errorf("KnownPath(%s) = false", p)
		}
	}
	for _, p := range []string{"gateway.prot", "tools.bogus", "nope"} {
		if KnownPath(p) {
			t.Errorf("KnownPath(%s) = true", p)
		}
	}
	for in, want := range map[string]string{"gateway.prot": "gateway.port", "gateway.auth.tokn": "gateway.auth.token",
		"tols.profile": "tools.profile", "gateway.zzzzzzzz": ""} {
		if got := SuggestPath(in); got != want {
			t.Errorf("SuggestPath(%s) = %q, want %q", in, got, want)
		}
	}
}
