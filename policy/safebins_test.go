package policy

import (
	"testing"
)

// safe analyses line as the exec tool does and asks SafeBin about its one
// segment, resolved in /usr/bin.
func safe(t *testing.T, line string, bins []string) bool {
	t.Helper()
	segs, ok := AnalyzeWords(line)
	if !ok || len(segs) != 1 {
		return false
	}
	seg := segs[0]
	seg.Resolved, seg.ViaPATH = "/usr/bin/"+seg.Argv[0], true
	return SafeBin(seg, bins, []string{"/bin", "/usr/bin"})
}

// Per bin: plain filters pass; every attack of issue 17 item 1 (and its
// neighbours: other spellings, abbreviations, combined flags, file
// operands, shell expansion) is a miss.
func TestSafeBinProfiles(t *testing.T) {
	all := append([]string{"jq", "awk", "sed", "cat"}, DefaultSafeBins...)
	for _, c := range []struct {
		line string
		want bool
	}{
		// head
		{"head", true}, {"head -n 5", true}, {"head -n5", true}, {"head -5", true}, {"head --lines=5", true},
		{"head --lin 5", true}, {"head -c 40 -q", true},
		{"head secret.txt", false}, {"head -n 5 secret.txt", false}, {"head -c 40 $F", false}, {`head -c 40 "$F"`, false},
		{"head -n $N", false}, {"head -- -n", false}, {"head -", false}, {"head /etc/passwd", false}, {"head ~/.ssh/id_rsa", false},
		{"head *", false}, {"head -n *", false}, {"head --lines", false}, {"head --bogus", false}, {"head -X", false},
		// tail
		{"tail -n 20", true}, {"tail -20", true}, {"tail -f", false}, {"tail -F", false}, {"tail --follow", false},
		{"tail --foll=name", false}, {"tail --retry", false}, {"tail --pid=1", false}, {"tail -nf 5", false}, {"tail log", false},
		// wc
		{"wc -l", true}, {"wc -lw", true}, {"wc --lines", true}, {"wc --files0-from=list", false}, {"wc --files0=list", false},
		{"wc --files0-from list", false}, {"wc f", false}, {"wc --total=only", true},
		// cut
		{"cut -d/ -f2", true}, {"cut -d , -f 1,3", true}, {"cut --output-delimiter=: -f1", true}, {"cut -f1 file", false},
		{"cut -d * -f1", false},
		// sort
		{"sort", true}, {"sort -rn", true}, {"sort -u -k2,2 -t,", true}, {"sort -S 1K", true}, {"sort --check=quiet", true},
		{"sort -S 1K --compress-prog sh payload.txt", false}, {"sort --compress-prog sh", false}, {"sort --compress-program=sh", false},
		{"sort -uo out f", false}, {"sort -uo out", false}, {"sort --outp out f", false}, {"sort --output=out", false}, {"sort -o out", false},
		{"sort -T /tmp", false}, {"sort --temporary-directory=/tmp", false}, {"sort --random-source=/dev/urandom", false},
		{"sort --files0-from=x", false}, {"sort f", false}, {"sort --unique", true}, {"sort --un", true},
		// uniq
		{"uniq -c", true}, {"uniq -f 2 -s 1", true}, {"uniq empty.txt victim.txt", false}, {"uniq empty.txt", false},
		{"uniq - victim.txt", false}, {"uniq --all-repeated=separate", true},
		// tr
		{"tr a-z A-Z", true}, {"tr '[:lower:]' '[:upper:]'", true}, {"tr -d '\\r'", true}, {"tr -s ' '", true},
		{"tr a b c", false}, {"tr $A b", false}, {"tr ~ b", false},
		// grep
		{"grep -e x", true}, {"grep -i -e 'a.*b'", true}, {"grep -ve x -c", true}, {"grep --regexp=x", true}, {"grep -E -e 'x|y'", true},
		{"grep x", false}, {"grep -e secret --recur", false}, {"grep -e x -r", false}, {"grep -re x", false}, {"grep -R -e x", false},
		{"grep -e x --recursive", false}, {"grep -e x --dereference-recursive", false}, {"grep -f pats", false}, {"grep --file=pats", false},
		{"grep --fi=pats", false}, {"grep -e x secret.txt", false}, {"grep -e x -- secret.txt", false}, {"grep -e a*", false},
		{"grep -e x --include=*.go", false}, {"grep -e x -d recurse", false}, {"grep -e x --directories=recurse", false},
		{"grep -e x --exclude-from=f", false}, {"grep --color=always -e x", true},
		// never safe bins, even when configured
		{"jq -n env", false}, {"jq .", false}, {"awk 1", false}, {"sed p", false}, {"cat", false},
	} {
		if got := safe(t, c.line, all); got != c.want {
			t.Errorf("%q: safe=%v, want %v", c.line, got, c.want)
		}
	}
}

// A bin off the list, or resolved outside the trusted dirs, is never safe;
// jq is not on the default list.
func TestSafeBinListAndDirs(t *testing.T) {
	if safe(t, "head -n 1", []string{"wc"}) {
		t.Error("a bin off the list was safe")
	}
	if safe(t, "jq .", DefaultSafeBins) {
		t.Error("jq is a default safe bin")
	}
	segs, _ := AnalyzeWords("head -n 1")
	seg := segs[0]
	seg.Resolved = "/home/u/bin/head"
	if SafeBin(seg, DefaultSafeBins, []string{"/bin", "/usr/bin"}) {
		t.Error("untrusted dir allowed")
	}
	// Without the shell-expansion marks nothing is vouched for.
	if SafeBin(Segment{Argv: []string{"head"}, Resolved: "/usr/bin/head"}, DefaultSafeBins, []string{"/usr/bin"}) {
		t.Error("a segment without expansion marks was safe")
	}
}
