// Package patch is the apply_patch tool: a multi-file edit in the Codex
// "*** Begin Patch" envelope. Unlike the original, a patch is applied all
// or nothing: every hunk of every file is verified in memory, every new
// file staged on disk, and only then are the files renamed into place.
package patch

import (
	"fmt"
	"strings"
)

const (
	beginPatch   = "*** Begin Patch"
	endPatch     = "*** End Patch"
	addFile      = "*** Add File: "
	deleteFile   = "*** Delete File: "
	updateFile   = "*** Update File: "
	moveTo       = "*** Move to: "
	endOfFile    = "*** End of File"
	emptyContext = "@@"
	contextMark  = "@@ "
)

// Hunk kinds.
const (
	KindAdd    = "add"
	KindDelete = "delete"
	KindUpdate = "update"
)

// Hunk is one file operation of a patch.
type Hunk struct {
	Kind     string
	Path     string
	MovePath string  // update only
	Contents string  // add only: the "+" lines, each ending in "\n"
	Chunks   []Chunk // update only
}

// Chunk is one "@@" section of an update.
type Chunk struct {
	Context     string // "@@ <context>": the line to find before the change
	OldLines    []string
	NewLines    []string
	IsEndOfFile bool
}

// errorf is a parse error; its text is what the model reads.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// Parse reads a patch. Errors carry the original's texts and the 1-based
// line number of the offending hunk in the trimmed input.
func Parse(input string) ([]Hunk, error) {
	trimmed := strings.TrimSpace(input)
	if trimmed == "" {
		return nil, errorf("Invalid patch: input is empty.")
	}
	lines := splitLines(trimmed)
	lines, err := checkBoundariesLenient(lines)
	if err != nil {
		return nil, err
	}
	var hunks []Hunk
	remaining := lines[1 : len(lines)-1]
	lineNumber := 2
	for len(remaining) > 0 {
		h, consumed, err := parseOneHunk(remaining, lineNumber)
		if err != nil {
			return nil, err
		}
		hunks = append(hunks, h)
		lineNumber += consumed
		remaining = remaining[consumed:]
	}
	return hunks, nil
}

// splitLines splits on \r?\n.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines[:len(lines)-1] {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func checkBoundariesStrict(lines []string) error {
	first, last := "", ""
	if len(lines) > 0 {
		first, last = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	}
	switch {
	case first == beginPatch && last == endPatch && len(lines) >= 2:
		return nil
	case first != beginPatch:
		return errorf("The first line of the patch must be '%s'", beginPatch)
	}
	return errorf("The last line of the patch must be '%s'", endPatch)
}

// checkBoundariesLenient also accepts a patch wrapped in a heredoc
// (<<EOF … EOF), as models often send it.
func checkBoundariesLenient(lines []string) ([]string, error) {
	strict := checkBoundariesStrict(lines)
	if strict == nil {
		return lines, nil
	}
	if len(lines) < 4 {
		return nil, strict
	}
	first, last := lines[0], lines[len(lines)-1]
	if (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) && strings.HasSuffix(last, "EOF") {
		inner := lines[1 : len(lines)-1]
		if err := checkBoundariesStrict(inner); err != nil {
			return nil, err
		}
		return inner, nil
	}
	return nil, strict
}

func parseOneHunk(lines []string, lineNumber int) (Hunk, int, error) {
	first := strings.TrimSpace(lines[0])
	switch {
	case strings.HasPrefix(first, addFile):
		h := Hunk{Kind: KindAdd, Path: first[len(addFile):]}
		var b strings.Builder
		consumed := 1
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "+") {
				break
			}
			b.WriteString(l[1:])
			b.WriteByte('\n')
			consumed++
		}
		h.Contents = b.String()
		return h, consumed, nil
	case strings.HasPrefix(first, deleteFile):
		return Hunk{Kind: KindDelete, Path: first[len(deleteFile):]}, 1, nil
	case strings.HasPrefix(first, updateFile):
		h := Hunk{Kind: KindUpdate, Path: first[len(updateFile):]}
		remaining := lines[1:]
		consumed := 1
		if len(remaining) > 0 {
			if c := strings.TrimSpace(remaining[0]); strings.HasPrefix(c, moveTo) {
				h.MovePath = c[len(moveTo):]
				remaining = remaining[1:]
				consumed++
			}
		}
		for len(remaining) > 0 {
			if strings.TrimSpace(remaining[0]) == "" {
				remaining = remaining[1:]
				consumed++
				continue
			}
			if strings.HasPrefix(remaining[0], "***") {
				break
			}
			c, n, err := parseChunk(remaining, lineNumber+consumed, len(h.Chunks) == 0)
			if err != nil {
				return Hunk{}, 0, err
			}
			h.Chunks = append(h.Chunks, c)
			remaining = remaining[n:]
			consumed += n
		}
		if len(h.Chunks) == 0 {
			return Hunk{}, 0, errorf("Invalid patch hunk at line %d: Update file hunk for path '%s' is empty", lineNumber, h.Path)
		}
		return h, consumed, nil
	}
	return Hunk{}, 0, errorf("Invalid patch hunk at line %d: '%s' is not a valid hunk header. "+
		"Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", lineNumber, lines[0])
}

func parseChunk(lines []string, lineNumber int, allowMissingContext bool) (Chunk, int, error) {
	var c Chunk
	start := 0
	switch {
	case lines[0] == emptyContext:
		start = 1
	case strings.HasPrefix(lines[0], contextMark):
		c.Context = lines[0][len(contextMark):]
		start = 1
	case !allowMissingContext:
		return c, 0, errorf("Invalid patch hunk at line %d: Expected update hunk to start with a @@ context marker, got: '%s'", lineNumber, lines[0])
	}
	if start >= len(lines) {
		return c, 0, errorf("Invalid patch hunk at line %d: Update hunk does not contain any lines", lineNumber+1)
	}
	parsed := 0
	for _, l := range lines[start:] {
		if l == endOfFile {
			if parsed == 0 {
				return c, 0, errorf("Invalid patch hunk at line %d: Update hunk does not contain any lines", lineNumber+1)
			}
			c.IsEndOfFile = true
			parsed++
			break
		}
		if l == "" {
			c.OldLines = append(c.OldLines, "")
			c.NewLines = append(c.NewLines, "")
			parsed++
			continue
		}
		switch l[0] {
		case ' ':
			c.OldLines = append(c.OldLines, l[1:])
			c.NewLines = append(c.NewLines, l[1:])
		case '+':
			c.NewLines = append(c.NewLines, l[1:])
		case '-':
			c.OldLines = append(c.OldLines, l[1:])
		default:
			if parsed == 0 {
				return c, 0, errorf("Invalid patch hunk at line %d: Unexpected line found in update hunk: '%s'. "+
					"Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", lineNumber+1, l)
			}
			return c, parsed + start, nil
		}
		parsed++
	}
	return c, parsed + start, nil
}
