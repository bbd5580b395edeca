package browser

import "testing"

// TestYAMLValue: text values are quoted exactly when a YAML reader would
// not read them back as the same string, as the original prints them.
func TestYAMLValue(t *testing.T) {
	for in, want := range map[string]string{
		"Hello there": "Hello there",
		"2":           `"2"`,
		"7.5":         `"7.5"`,
		"0x1f":        `"0x1f"`,
		"-3":          `"-3"`,
		"yes":         `"yes"`,
		"Null":        `"Null"`,
		"a: b":        `"a: b"`,
		"a:b":         "a:b",
		"ends:":       `"ends:"`,
		"go #1":       `"go #1"`,
		"#1":          `"#1"`,
		"- item":      `"- item"`,
		"[x]":         `"[x]"`,
		"{x}":         `"{x}"`,
		`say "hi"`:    `say "hi"`,
		`"hi"`:        `"\"hi\""`,
		" pad":        `" pad"`,
		"":            `""`,
		"tab\there":   "tab\there",
		"$12.00":      "$12.00",
		"1234 5678":   "1234 5678",
		"Cart (2)":    "Cart (2)",
	} {
		if got := yamlValue(in); got != want {
			t.Errorf("yamlValue(%q) = %s, want %s", in, got, want)
		}
	}
}
