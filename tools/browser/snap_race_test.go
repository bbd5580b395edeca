package browser_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// gjsonText is the text block of a CLI --json result.
func gjsonText(out string) string { return gjson.Get(out, "content.0.text").String() }

// refLines maps each ref in a snapshot to its line (indentation dropped).
func refLines(t *testing.T, snap string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(snap, "\n") {
		i := strings.Index(l, "[ref=")
		if i < 0 {
			continue
		}
		ref := l[i+5 : i+5+strings.IndexByte(l[i+5:], ']')]
		if prev, dup := out[ref]; dup {
			t.Errorf("ref %s printed twice in one snapshot: %q and %q", ref, prev, l)
		}
		out[ref] = strings.TrimSpace(l)
	}
	return out
}

// TestSnapshotRefsUniqueUnderConcurrency: several processes snapshot a
// fresh page at once. No ref may name two elements and no element may get
// two refs: every ref any of them printed names, in a later snapshot, the
// same line, and the page holds each ref once.
func TestSnapshotRefsUniqueUnderConcurrency(t *testing.T) {
	r := newRig(t, nil)
	r.ok("browser", "open", r.base+"/many.html")
	for round := 0; round < 4; round++ {
		if round > 0 {
			r.ok("browser", "navigate", fmt.Sprintf("%s/many.html?round=%d", r.base, round))
		}
		outs := make([]string, 3)
		codes := make([]int, len(outs))
		var wg sync.WaitGroup
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], _, codes[i] = r.run("browser", "snapshot", "--max-chars", "0")
			}()
		}
		wg.Wait()
		dups := r.eval(`() => { const m = {}; for (const e of document.querySelectorAll("[data-openclaw-ref]")) { const k = e.getAttribute("data-openclaw-ref"); m[k] = (m[k] || 0) + 1 } return Object.keys(m).filter(k => m[k] > 1).join(",") }`)
		if dups != "" {
			t.Errorf("round %d: refs bound to several elements in the page: %s", round, dups)
		}
		final := refLines(t, r.snapshot("--max-chars", "0"))
		for i, out := range outs {
			if codes[i] != 0 {
				t.Fatalf("round %d: concurrent snapshot %d: exit %d %s", round, i, codes[i], out)
			}
			snap := gjsonText(out)
			for ref, line := range refLines(t, snap) {
				if final[ref] != line {
					t.Errorf("round %d: snapshot %d printed %q, a later snapshot has %q for %s", round, i, line, final[ref], ref)
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}
