package commands

import (
	"testing"
	"time"
)

func TestDurationValueTakesSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "0.5": 500 * time.Millisecond, "5s": 5 * time.Second, "2m": 2 * time.Minute, "1h30m": 90 * time.Minute} {
		var d durationValue
		if err := d.Set(in); err != nil || time.Duration(d) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	for _, in := range []string{"abc", "-5", "-2s", ""} {
		var d durationValue
		if err := d.Set(in); err == nil {
			t.Errorf("Set(%q) accepted", in)
		}
	}
}

func TestDashFlags(t *testing.T) {
	for in, want := range map[string]string{
		`invalid value "5" for flag -timeout: parse error`: `invalid value "5" for flag --timeout: parse error`,
		`flag provided but not defined: -bogus`:            `flag provided but not defined: --bogus`,
		`flag provided but not defined: -x`:                `flag provided but not defined: -x`,
	} {
		if got := dashFlags(in); got != want {
			t.Errorf("dashFlags(%q) = %q, want %q", in, got, want)
		}
	}
}
