package patch

import (
	"fmt"
	"strings"
)

// The fuzz ladder: each is a complete pass over the candidate positions,
// tried in this order; the first position that matches wins.
var passes = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
	strings.TrimSpace,
	func(s string) string { return foldPunctuation(strings.TrimSpace(s)) },
}

// foldPunctuation maps typographic dashes, quotes and spaces to ASCII, as
// models often type the ASCII ones for what the file spells otherwise.
func foldPunctuation(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			return '-'
		case r >= 0x2018 && r <= 0x201B:
			return '\''
		case r >= 0x201C && r <= 0x201F:
			return '"'
		case r == 0xA0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return ' '
		}
		return r
	}, s)
}

// seek finds pattern in lines at or after start (at the end when eof),
// or returns -1.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	maxStart := len(lines) - len(pattern)
	from := start
	if eof {
		from = maxStart
	}
	if from > maxStart || from < 0 {
		return -1
	}
	for _, norm := range passes {
		pat := make([]string, len(pattern))
		for i, p := range pattern {
			pat[i] = norm(p)
		}
	next:
		for i := from; i <= maxStart; i++ {
			for j, p := range pat {
				if norm(lines[i+j]) != p {
					continue next
				}
			}
			return i
		}
	}
	return -1
}

type replacement struct {
	start, oldLen int
	newLines      []string
}

// applyChunks applies an update's chunks to content (LF line endings) and
// returns the new content, ending in exactly one newline. shown names the
// file in errors.
func applyChunks(content string, chunks []Chunk, shown string) (string, error) {
	lines := strings.Split(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var reps []replacement
	cursor := 0
	for _, c := range chunks {
		if c.Context != "" {
			i := seek(lines, []string{c.Context}, cursor, false)
			if i < 0 {
				return "", fmt.Errorf("Failed to find context '%s' in %s", c.Context, shown)
			}
			cursor = i + 1
		}
		if len(c.OldLines) == 0 {
			at := len(lines)
			if at > 0 && lines[at-1] == "" {
				at--
			}
			reps = append(reps, replacement{at, 0, c.NewLines})
			continue
		}
		pattern, newLines := c.OldLines, c.NewLines
		found := seek(lines, pattern, cursor, c.IsEndOfFile)
		if found < 0 && pattern[len(pattern)-1] == "" {
			pattern = pattern[:len(pattern)-1]
			if n := len(newLines); n > 0 && newLines[n-1] == "" {
				newLines = newLines[:n-1]
			}
			found = seek(lines, pattern, cursor, c.IsEndOfFile)
		}
		if found < 0 {
			return "", fmt.Errorf("Failed to find expected lines in %s:\n%s", shown, strings.Join(c.OldLines, "\n"))
		}
		reps = append(reps, replacement{found, len(pattern), newLines})
		cursor = found + len(pattern)
	}
	sortReplacements(reps)
	for i := len(reps) - 1; i >= 0; i-- {
		r := reps[i]
		end := min(r.start+r.oldLen, len(lines))
		tail := append([]string(nil), lines[end:]...)
		lines = append(append(lines[:r.start], r.newLines...), tail...)
	}
	if len(lines) == 0 || lines[len(lines)-1] != "" {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n"), nil
}

// sortReplacements orders by start, keeping the chunk order for equal
// starts (a stable insertion sort: patches have few chunks).
func sortReplacements(r []replacement) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j].start < r[j-1].start; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
