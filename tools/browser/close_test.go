package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCloseTabUnderAlertLoop: a tab whose page opens alert after alert
// still closes, with close, act --kind close and tab close alike (it used
// to answer "has an open alert dialog" every time): closing dismisses the
// tab's dialogs first, as a user closing it does.
func TestCloseTabUnderAlertLoop(t *testing.T) {
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<button onclick='for (;;) alert("again")'>Loop</button>`)
	}))
	t.Cleanup(pages.Close)
	r := newRig(t, nil)
	for _, how := range [][]string{{"close"}, {"act", "--kind", "close"}, {"tab", "close"}} {
		id := r.ok("browser", "open", pages.URL+"/loop").Get("targetId").String()
		res := r.ok("browser", "click", refFor(t, r.snapshot(), `button "Loop"`))
		if res.Get("blockedByDialog.type").String() != "alert" {
			t.Fatalf("the loop's first alert: %s", res.Raw)
		}
		if out, errs, code := r.run(append([]string{"browser"}, how...)...); code != 0 {
			t.Errorf("%s under an alert loop: exit %d %s%s", strings.Join(how, " "), code, out, errs)
			continue
		}
		deadline := time.Now().Add(15 * time.Second)
		for strings.Contains(r.ok("browser", "tabs").Raw, id) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: tab %s still open", strings.Join(how, " "), id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
