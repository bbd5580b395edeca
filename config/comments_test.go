package config

import "testing"

func TestHasComments(t *testing.T) {
	for doc, want := range map[string]bool{
		`{url: "https://example.com/a"}`:       false,
		`{url: 'wss://h/*x*/', b: "\"//\""}`:   false,
		"{a: 1 // trailing\n}":                 true,
		`{/* block */ a: 1}`:                   true,
		`{a: "x\\"} // after an escaped quote`: true,
		`{a: 1/2}`:                             false,
	} {
		if got := HasComments([]byte(doc)); got != want {
			t.Errorf("HasComments(%s) = %v, want %v", doc, got, want)
		}
	}
}
