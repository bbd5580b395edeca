package fs

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround a change in edit diffs.
const diffContext = 4

// maxDiffCells bounds the LCS table; beyond it the changed middle is shown
// as one removal and one addition.
const maxDiffCells = 4 << 20

type diffPart struct {
	op    byte // ' ', '-', '+'
	lines []string
}

// lineDiff renders the original's edit diff: changed lines as "-N text" /
// "+N text" (old / new line numbers), up to four context lines as " N text",
// and " ..." where lines are skipped. It also returns the first changed line
// in the new text (0 when nothing changed).
func lineDiff(oldText, newText string) (string, int) {
	parts := diffLines(splitLines(oldText), splitLines(newText))
	width := len(fmt.Sprint(max(strings.Count(oldText, "\n"), strings.Count(newText, "\n")) + 1))
	pad := strings.Repeat(" ", width)
	var out []string
	oldN, newN, first := 1, 1, 0
	lastWasChange := false
	for i, p := range parts {
		if p.op != ' ' {
			if first == 0 {
				first = newN
			}
			for _, l := range p.lines {
				if p.op == '+' {
					out = append(out, fmt.Sprintf("+%*d %s", width, newN, l))
					newN++
				} else {
					out = append(out, fmt.Sprintf("-%*d %s", width, oldN, l))
					oldN++
				}
			}
			lastWasChange = true
			continue
		}
		nextIsChange := i+1 < len(parts)
		if !lastWasChange && !nextIsChange {
			oldN += len(p.lines)
			newN += len(p.lines)
			continue
		}
		show, skipStart, skipEnd := p.lines, 0, 0
		if !lastWasChange {
			skipStart = max(0, len(show)-diffContext)
			show = show[skipStart:]
		}
		if !nextIsChange && len(show) > diffContext {
			skipEnd = len(show) - diffContext
			show = show[:diffContext]
		}
		if skipStart > 0 {
			out = append(out, " "+pad+" ...")
			oldN += skipStart
			newN += skipStart
		}
		for _, l := range show {
			out = append(out, fmt.Sprintf(" %*d %s", width, oldN, l))
			oldN++
			newN++
		}
		if skipEnd > 0 {
			out = append(out, " "+pad+" ...")
			oldN += skipEnd
			newN += skipEnd
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), first
}

// splitLines splits on LF; a final newline ends the last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines is a line diff: common prefix and suffix, then an LCS of the
// middle. Within a change, removals come before additions.
func diffLines(a, b []string) []diffPart {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []byte
	var lines []string
	add := func(op byte, l string) { ops, lines = append(ops, op), append(lines, l) }
	for _, l := range a[:pre] {
		add(' ', l)
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			add('-', l)
		}
		for _, l := range mb {
			add('+', l)
		}
	} else {
		lcsDiff(ma, mb, add)
	}
	for _, l := range a[len(a)-suf:] {
		add(' ', l)
	}
	// Group runs; in each change put removals first.
	var parts []diffPart
	for i := 0; i < len(ops); {
		if ops[i] == ' ' {
			j := i
			for j < len(ops) && ops[j] == ' ' {
				j++
			}
			parts = append(parts, diffPart{' ', lines[i:j]})
			i = j
			continue
		}
		var del, ins []string
		for i < len(ops) && ops[i] != ' ' {
			if ops[i] == '-' {
				del = append(del, lines[i])
			} else {
				ins = append(ins, lines[i])
			}
			i++
		}
		if len(del) > 0 {
			parts = append(parts, diffPart{'-', del})
		}
		if len(ins) > 0 {
			parts = append(parts, diffPart{'+', ins})
		}
	}
	return parts
}

func lcsDiff(a, b []string, add func(byte, string)) {
	n, m := len(a), len(b)
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			add(' ', a[i])
			i++
			j++
		case *at(i+1, j) >= *at(i, j+1):
			add('-', a[i])
			i++
		default:
			add('+', b[j])
			j++
		}
	}
	for ; i < n; i++ {
		add('-', a[i])
	}
	for ; j < m; j++ {
		add('+', b[j])
	}
}
