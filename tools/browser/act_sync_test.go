package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTypeEffectsAndFront: a type reports what the page's input handlers
// did in that act (its console error, the request it started), though
// its settle waits for the marker the act's own evaluation sent rather
// than sending one; and a tab behind another is brought to the front
// before the act (the page is visible and focused for it), while the
// other tab keeps its text.
func TestTypeEffectsAndFront(t *testing.T) {
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data":
			fmt.Fprint(w, "ok")
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>Typing</title><label for=q>Query</label><input id=q>
<p id=seen></p>
<script>
q.addEventListener("input", () => {
	console.error("typed:" + q.value);
	fetch("/data?q=" + encodeURIComponent(q.value));
	seen.textContent = document.visibilityState + " " + document.hasFocus();
});
</script>`)
		}
	}))
	t.Cleanup(pages.Close)
	r := newRig(t, nil)

	first := r.ok("browser", "open", pages.URL+"/first").Get("targetId").String()
	field := refFor(t, r.snapshot(), `textbox "Query"`)
	res := r.ok("browser", "type", field, "abc")
	if !strings.Contains(res.Get("consoleErrors").Raw, "typed:abc") {
		t.Errorf("type whose input handler logs an error: %s", res.Raw)
	}
	if res.Get("requests").Int() < 1 {
		t.Errorf("type whose input handler fetches: %s", res.Raw)
	}

	// A second tab comes to the front; typing into the first brings it back.
	r.ok("browser", "open", pages.URL+"/second")
	r.ok("browser", "type", field, "xyz", "--target-id", first)
	got := r.ok("browser", "evaluate", "--target-id", first, "--fn",
		`() => document.getElementById("q").value + "|" + document.getElementById("seen").textContent`).Get("result").String()
	if got != "xyz|visible true" {
		t.Errorf("the first tab after typing into it behind the second: %q", got)
	}
	if v := r.eval(`() => document.getElementById("q").value`); v != "" {
		t.Errorf("the second tab's field: %q", v)
	}
}
