package browser

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/rogpeppe/go-internal/diff"
)

// The last snapshot of each tab is kept in the profile's state dir, one
// file per target id, so `snapshot --diff` in a later process (or in the
// gateway) compares against whatever snapshot came before. Bounded: a few
// option sets per tab, a size cap per text, and the newest files only.
const (
	baselineKeys     = 4       // option sets remembered per tab
	baselineMaxText  = 2 << 20 // bigger snapshots are not remembered
	baselineMaxFiles = 50      // tabs remembered per profile
)

// safeTargetID reports whether id is 1 to 128 of [A-Za-z0-9_-] (a file
// name of its own): checked by hand, as the regexp for it compiles to a
// large program (~0.4 ms of a snapshot's CPU time).
func safeTargetID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

type baseline struct {
	Key  string `json:"key"`
	URL  string `json:"url"`
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitempty"` // the text was cut at maxChars: no baseline for a diff
}

// snapKey names the option set a snapshot was rendered with: a diff only
// compares snapshots taken alike.
func snapKey(p snapParams, interactive, compact bool, depth *int) string {
	d := "-"
	if depth != nil {
		d = fmt.Sprint(*depth)
	}
	return fmt.Sprintf("i=%t c=%t d=%s sel=%q frame=%q urls=%t", interactive, compact, d, p.Selector, p.Frame, p.URLs)
}

// swapBaseline records text as the tab's last snapshot for key and returns
// the one it replaces ("" and false when none, or the page navigated).
// A text already cut at maxChars (cut) is remembered as no baseline.
// Storage errors only cost the next diff its baseline.
func swapBaseline(profileDir, targetID, key, url, text string, cut bool) (string, bool) {
	if !safeTargetID(targetID) {
		return "", false
	}
	dir := filepath.Join(profileDir, "snapshots")
	path := filepath.Join(dir, targetID+".json")
	var entries []baseline
	if f, err := os.Open(path); err == nil {
		_ = json.NewDecoder(io.LimitReader(f, baselineKeys*(baselineMaxText+4096))).Decode(&entries)
		f.Close()
	}
	prev, found := "", false
	kept := []baseline{}
	if cut {
		kept = append(kept, baseline{Key: key, URL: url, Cut: true})
	} else if len(text) <= baselineMaxText {
		kept = append(kept, baseline{Key: key, URL: url, Text: text})
	}
	for _, e := range entries {
		if e.Key == key {
			prev, found = e.Text, e.URL == url && !e.Cut
			continue
		}
		if len(kept) < baselineKeys {
			kept = append(kept, e)
		}
	}
	// A cache: temp file and rename, no fsync (a lost baseline costs one
	// diff its baseline; an fsync per snapshot costs every snapshot).
	b, err := json.Marshal(kept)
	if err == nil && os.MkdirAll(dir, 0o700) == nil && atomicfile.WriteCache(path, b, 0o600) == nil {
		pruneBaselines(dir)
	}
	return prev, found
}

// pruneBaselines keeps the newest baselineMaxFiles tab files.
func pruneBaselines(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= baselineMaxFiles {
		return
	}
	type fi struct {
		name string
		mod  int64
	}
	var fs []fi
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if info, err := e.Info(); err == nil {
			fs = append(fs, fi{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].mod > fs[j].mod })
	for _, f := range fs[min(len(fs), baselineMaxFiles):] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}

// diffText is what --diff prints: "unchanged", the changed lines as a
// unified diff (refs are stable, so unchanged regions match line for
// line), or the whole snapshot when there is no baseline or the diff would
// not be much smaller. The state says which.
func diffText(prev string, found bool, cur string) (string, string) {
	if !found {
		return cur, "full"
	}
	if prev == cur {
		return "unchanged", "unchanged"
	}
	d := trimContext(string(diff.Diff("before", []byte(prev+"\n"), "after", []byte(cur+"\n"))))
	if len(d) > len(cur)*7/10 {
		return cur, "full"
	}
	return d, "changed"
}

// diffLines keeps the lines a diff shows as present now (added and
// context), without their diff marker, for the refs map and stats.
func diffLines(d string) string {
	var b strings.Builder
	for _, l := range strings.Split(d, "\n") {
		if l == "" || (l[0] != '+' && l[0] != ' ') {
			continue
		}
		b.WriteString(l[1:])
		b.WriteByte('\n')
	}
	return b.String()
}

// trimContext keeps the changed lines of a unified diff and one line of
// context on each side (enough to place them in the tree), drops the file
// header and the line numbers (meaningless to a reader of refs), and
// separates the hunks with "@@".
func trimContext(d string) string {
	var body []string
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		if strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		if strings.HasPrefix(l, "@@") {
			l = "@@"
		}
		body = append(body, l)
	}
	changed := func(i int) bool {
		return i >= 0 && i < len(body) && body[i] != "@@" && body[i] != "" && body[i][0] != ' '
	}
	var out []string
	for i, l := range body {
		keep := changed(i) || (l != "@@" && (changed(i-1) || changed(i+1)))
		if !keep {
			if len(out) > 0 && out[len(out)-1] != "@@" {
				out = append(out, "@@")
			}
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "@@" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}
