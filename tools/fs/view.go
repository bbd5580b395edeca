package fs

import (
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A view is a normalised copy of a text that remembers where every piece
// came from, so a match found in the copy can be spliced into the original
// bytes: text outside the match is never rewritten.
//
// The LF view only turns CRLF into LF. The fuzzy view also applies NFKC,
// folds smart quotes to ASCII quotes, Unicode dashes to '-' and special
// spaces to ' ', and drops whitespace at the end of every line.
type view struct {
	text  string
	units []unit
}

// unit maps text[n:n+nl] to original[o:o+ol]. An identity unit is a run of
// bytes copied unchanged: any offset inside it maps. Other units (a folded
// character, a CRLF) map only as a whole. Dropped bytes have no unit.
type unit struct {
	n, nl, o, ol int
	ident        bool
}

type viewBuilder struct {
	buf   []byte
	units []unit
	// wsFrom is where the current run of trailing whitespace starts in buf
	// (-1: none); the run is dropped at the next newline or at the end.
	wsFrom int
}

func buildView(s string, fuzzy bool) *view {
	b := &viewBuilder{buf: make([]byte, 0, len(s)), wsFrom: -1}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.newline(s, i, 2, fuzzy)
			i += 2
		case s[i] == '\n':
			b.newline(s, i, 1, fuzzy)
			i++
		case !fuzzy:
			j := lineEnd(s, i)
			b.emit(s[i:j], s[i:j], i)
			i = j
		default:
			j := asciiRunEnd(s, i)
			if j > i {
				b.emitASCII(s[i:j], i)
			} else {
				j = segmentEnd(s, i)
				b.emitFolded(s[i:j], i)
			}
			i = j
		}
	}
	b.dropTrailing()
	return &view{text: string(b.buf), units: b.units}
}

// lineEnd returns where the line text starting at i ends (at LF or CRLF; a
// lone CR is ordinary text).
func lineEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		if s[j] == '\n' || s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n' {
			return j
		}
	}
	return len(s)
}

// asciiRunEnd returns the end of the run of plain ASCII (no CR or LF) at i,
// leaving out a last character that a following combining mark could change.
func asciiRunEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\r' && s[j] != '\n' {
		j++
	}
	if j > i && j < len(s) && s[j] >= utf8.RuneSelf && !norm.NFKC.PropertiesString(s[j:]).BoundaryBefore() {
		j--
	}
	return j
}

// segmentEnd returns the end of the normalisation segment starting at i: one
// rune plus every following rune that may combine with it. Segments never
// interact under NFKC, so each is normalised on its own.
func segmentEnd(s string, i int) int {
	_, w := utf8.DecodeRuneInString(s[i:])
	j := i + w
	for j < len(s) && s[j] != '\r' && s[j] != '\n' {
		if norm.NFKC.PropertiesString(s[j:]).BoundaryBefore() {
			break
		}
		_, w := utf8.DecodeRuneInString(s[j:])
		j += w
	}
	return j
}

func (b *viewBuilder) newline(s string, o, ol int, fuzzy bool) {
	if fuzzy {
		b.dropTrailing()
	}
	b.emit(s[o:o+ol], "\n", o)
}

// emitASCII appends a run of ASCII (unchanged by normalisation) and tracks
// the whitespace at its end.
func (b *viewBuilder) emitASCII(run string, o int) {
	start := len(b.buf)
	b.emit(run, run, o)
	k := len(strings.TrimRight(run, " \t\v\f\r"))
	switch {
	case k == len(run):
		b.wsFrom = -1
	case k > 0 || b.wsFrom < 0:
		b.wsFrom = start + k
	}
}

// emitFolded appends one normalisation segment in its fuzzy form.
func (b *viewBuilder) emitFolded(seg string, o int) {
	out := fold(norm.NFKC.String(seg))
	if out == "" {
		return
	}
	start := len(b.buf)
	b.emit(seg, out, o)
	if isBlank(out) {
		if b.wsFrom < 0 {
			b.wsFrom = start
		}
	} else {
		b.wsFrom = -1
	}
}

// emit appends out (the normalised form of orig, which starts at o).
func (b *viewBuilder) emit(orig, out string, o int) {
	if out == "" {
		return
	}
	n := len(b.buf)
	b.buf = append(b.buf, out...)
	if orig == out {
		if k := len(b.units) - 1; k >= 0 {
			u := &b.units[k]
			if u.ident && u.n+u.nl == n && u.o+u.ol == o {
				u.nl += len(out)
				u.ol += len(out)
				return
			}
		}
		b.units = append(b.units, unit{n, len(out), o, len(orig), true})
		return
	}
	b.units = append(b.units, unit{n, len(out), o, len(orig), false})
}

// dropTrailing removes the pending run of end-of-line whitespace.
func (b *viewBuilder) dropTrailing() {
	from := b.wsFrom
	b.wsFrom = -1
	if from < 0 {
		return
	}
	for len(b.units) > 0 {
		u := &b.units[len(b.units)-1]
		if u.n >= from {
			b.units = b.units[:len(b.units)-1]
			continue
		}
		if u.n+u.nl > from { // an identity run ending in whitespace
			u.nl = from - u.n
			u.ol = u.nl
		}
		break
	}
	b.buf = b.buf[:from]
}

// span maps the view range [ns, ne) back to the original. It fails when an
// end falls inside a unit that was changed as a whole (say, inside the "fi"
// NFKC makes of "ﬁ"): such a match has no exact counterpart.
func (v *view) span(ns, ne int) (int, int, bool) {
	if ns < 0 || ne <= ns || ne > len(v.text) {
		return 0, 0, false
	}
	find := func(pos int) *unit {
		k := sort.Search(len(v.units), func(k int) bool { return v.units[k].n+v.units[k].nl > pos })
		if k == len(v.units) || v.units[k].n > pos {
			return nil
		}
		return &v.units[k]
	}
	a, z := find(ns), find(ne-1)
	if a == nil || z == nil {
		return 0, 0, false
	}
	if !a.ident && ns != a.n {
		return 0, 0, false
	}
	if !z.ident && ne != z.n+z.nl {
		return 0, 0, false
	}
	from := a.o + (ns - a.n)
	to := z.o + (ne - z.n)
	if !z.ident {
		to = z.o + z.ol
	}
	return from, to, true
}
