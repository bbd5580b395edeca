package tools

import (
	"reflect"
	"testing"
)

// Suggestions are for typos, not for any word that shares two letters.
func TestClosestSuggestsTyposOnly(t *testing.T) {
	cmds := []string{"apply-patch", "completion", "config", "edit", "gateway", "health", "logs", "read", "serve", "tools", "version", "write"}
	cases := []struct {
		word string
		want []string
	}{
		{"bogus", nil},             // distance 2 from logs: too far for five letters
		{"xyz", nil},               // three letters: never beyond distance 1
		{"red", []string{"read"}},  // one letter missing
		{"raed", []string{"read"}}, // a swap counts one
		{"confgi", []string{"config"}},
		{"healht", []string{"health"}},
		{"gatewy", []string{"gateway"}},
		{"comletoin", []string{"completion"}}, // long word: distance 2
		{"ver", []string{"version"}},          // prefix
		{"apply", []string{"apply-patch"}},
		{"toll", nil},
	}
	for _, c := range cases {
		if got := Closest(c.word, cmds); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if d := levenshtein("raed", "read"); d != 1 {
		t.Errorf("swap distance %d, want 1", d)
	}
}
