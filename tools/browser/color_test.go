package browser_test

import (
	"testing"

	"github.com/openclaw-go/openclaw/porttest"
)

// status and profiles carry each profile's color as the original does (its
// CLI prints profileColor): the configured one, else the original's
// default #FF4500. Neither needs a running browser.
func TestStatusAndProfilesCarryColor(t *testing.T) {
	r := &rig{t: t, state: t.TempDir()}
	r.writeConfig(map[string]any{"headless": true,
		"profiles": map[string]any{"openclaw": map[string]any{"cdpPort": porttest.Free(t)},
			"work": map[string]any{"cdpPort": porttest.Free(t), "color": "#0066CC"}}})
	if got := r.ok("browser", "status").Get("color").String(); got != "#FF4500" {
		t.Errorf("default profile status color %q, want #FF4500", got)
	}
	if got := r.ok("browser", "status", "--browser-profile", "work").Get("color").String(); got != "#0066CC" {
		t.Errorf("work status color %q, want #0066CC", got)
	}
	res := r.ok("browser", "profiles")
	for name, want := range map[string]string{"openclaw": "#FF4500", "work": "#0066CC"} {
		if got := res.Get(`profiles.#(name=="` + name + `").color`).String(); got != want {
			t.Errorf("profiles %s color %q, want %q: %s", name, got, want, res.Raw)
		}
	}
}
