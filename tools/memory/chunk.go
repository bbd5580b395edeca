package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Chunk sizes of the original (chunking.tokens 400, overlap 80, at four
// characters a token).
const (
	chunkMaxChars = 400 * 4
	chunkOverlap  = 80 * 4
)

// chunk is one indexed piece of a file: 1-based inclusive line numbers.
type chunk struct {
	StartLine, EndLine int
	Text               string
	Hash               string
}

// chunkLines is the original's line-oriented chunker: lines are packed until
// the next would pass maxChars, a longer line is cut into maxChars pieces,
// and each chunk after the first starts with the trailing lines of the one
// before that total at most overlap characters, so a fact cut at a boundary
// is still found whole.
func chunkLines(text string, maxChars, overlap int) []chunk {
	if overlap > maxChars/2 {
		overlap = maxChars / 2
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	type line struct {
		no   int
		text string
	}
	var cur []line
	curChars := 0
	fresh := false // lines added since the last flush (not only carried overlap)
	var out []chunk
	flush := func() {
		if len(cur) == 0 {
			return
		}
		parts := make([]string, len(cur))
		for i, l := range cur {
			parts[i] = l.text
		}
		body := strings.Join(parts, "\n")
		if strings.TrimSpace(body) != "" {
			sum := sha256.Sum256([]byte(body))
			out = append(out, chunk{StartLine: cur[0].no, EndLine: cur[len(cur)-1].no,
				Text: body, Hash: hex.EncodeToString(sum[:])})
		}
		// Keep the trailing lines that fit the overlap.
		keep, kept := 0, 0
		for i := len(cur) - 1; i >= 0; i-- {
			n := utf8.RuneCountInString(cur[i].text) + 1
			if kept+n > overlap {
				break
			}
			kept += n
			keep++
		}
		if keep == len(cur) { // never carry a whole chunk: no progress
			keep, kept = 0, 0
		}
		cur = append([]line(nil), cur[len(cur)-keep:]...)
		curChars = kept
		fresh = false
	}
	for i, l := range strings.Split(text, "\n") {
		no := i + 1
		for _, seg := range splitRunes(l, maxChars) {
			n := utf8.RuneCountInString(seg) + 1
			if curChars+n > maxChars && len(cur) > 0 {
				flush()
			}
			cur = append(cur, line{no, seg})
			curChars += n
			fresh = true
		}
	}
	if fresh {
		flush()
	}
	return out
}

// splitRunes cuts s into pieces of at most n runes ("" stays one piece).
func splitRunes(s string, n int) []string {
	if utf8.RuneCountInString(s) <= n {
		return []string{s}
	}
	var out []string
	r := []rune(s)
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return append(out, string(r))
}
