package exectool

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
)

// An out-of-range timeout is refused (exit 2) before anything runs; it
// used to overflow time.Duration and kill the command at once with "timed
// out after 1000…0 seconds" (issue 17 item 15).
func TestExecTimeoutOutOfRangeRefused(t *testing.T) {
	env := localEnv(t)
	for _, p := range []string{
		`{"command":"echo ran","timeout":1e308}`,
		`{"command":"echo ran","timeoutSeconds":1e308}`,
		`{"command":"echo ran","timeout":9.3e9}`,
	} {
		m, err := invoke(t, env, p)
		if code(err) != tools.CodeInvalidParams || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("%s: %v %v, want invalid params naming the timeout", p, m, err)
		}
	}
	// The largest accepted value runs normally.
	m, err := invoke(t, env, `{"command":"echo ran","timeout":2592000}`)
	if err != nil || text(m) != "ran" {
		t.Fatalf("timeout at the maximum: %v %v", m, err)
	}
}

// Durations from config and from other params are clamped before they
// become a time.Duration, never overflowed into "already expired".
func TestDurationClamps(t *testing.T) {
	if d := secondsDuration(1e308); d != maxTimeout {
		t.Errorf("secondsDuration(1e308) = %v", d)
	}
	if d := millisDuration(1e308, maxPollWait); d != maxPollWait {
		t.Errorf("millisDuration(1e308) = %v", d)
	}
	if d := millisDuration(-5, maxPollWait); d != 0 {
		t.Errorf("millisDuration(-5) = %v", d)
	}
	if d := millisDuration(250, maxPollWait); d.Milliseconds() != 250 {
		t.Errorf("millisDuration(250) = %v", d)
	}
}
