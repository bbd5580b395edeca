package pdf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	lpdf "github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// wordGap is the TJ adjustment (thousandths of an em) read as a space.
const wordGap = 250

func abs(x float64) float64 { return max(x, -x) }

// abort carries an error out of the library's Interpret callback.
type abort struct{ err error }

// textWalk is the text of pages, read with the fonts of each page (their
// /ToUnicode maps decode Identity-H glyph ids) and within the caps: the
// library's Page.GetPlainText needs a font map it fills itself and has no
// way to stop, so the walk is ours over its Interpret and Font API.
type textWalk struct {
	ctx     context.Context
	lim     limits
	meter   *meter
	docText int
}

// pageText is one page's text with blank lines and trailing spaces tidied.
func (w *textWalk) pageText(pg lpdf.Page) (text string, err error) {
	if pg.V.IsNull() || pg.V.Key("Contents").IsNull() {
		return "", nil
	}
	w.meter.startPage()
	contents := pg.V.Key("Contents")
	fonts, err := pageFonts(pg)
	if err != nil {
		return "", err
	}
	for _, f := range fonts {
		if err := w.meter.stream(f.V.Key("ToUnicode")); err != nil {
			return "", err
		}
	}
	if err := w.meter.stream(contents); err != nil {
		return "", err
	}
	raw, err := w.interpret(pg, contents, fonts)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, l := range strings.Split(raw, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return norm.NFC.String(strings.Join(lines, "\n")), nil // z + U+0301 is ź
}

// scratchDict is a fresh copy of font name's dictionary (each lookup
// parses the object anew), for readToUnicode's PostScript to write into.
func scratchDict(pg lpdf.Page, name string) lpdf.Value {
	fonts, err := pageFonts(pg)
	if err != nil || fonts[name] == nil {
		return lpdf.Value{}
	}
	return fonts[name].V
}

// interpret runs the content stream's text operators (as GetPlainText
// does) and checks the context and the text caps as it goes.
func (w *textWalk) interpret(pg lpdf.Page, contents lpdf.Value, fonts map[string]*lpdf.Font) (out string, err error) {
	var b strings.Builder
	page := 0
	emit := func(s string) {
		n := utf8.RuneCountInString(s)
		page += n
		w.docText += n
		if page > w.lim.pageText {
			panic(abort{&capError{what: "text of the page", key: keyPageTextChars, limit: int64(w.lim.pageText), unit: "characters"}})
		}
		if w.docText > w.lim.docText {
			panic(abort{&capError{what: "text of the document", key: keyDocTextChars, limit: int64(w.lim.docText), unit: "characters"}})
		}
		b.WriteString(s)
	}
	var enc lpdf.TextEncoding
	maps := map[string]*toUnicode{}
	show := func(raw string) {
		if enc == nil {
			emit(raw) // no font selected: as the library, the bytes as they are
			return
		}
		if m, ok := enc.(*toUnicode); ok {
			m.each(raw, emit)
			return
		}
		// Two bytes at a time (a code is one byte in simple fonts, two in
		// Identity-H), so a map entry that expands a code into a long
		// string is checked against the caps per code.
		for i := 0; i < len(raw); i += 2 {
			emit(enc.Decode(raw[i:min(i+2, len(raw))]))
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				out, err = "", a.err
				return
			}
			out, err = "", fmt.Errorf("%v", r)
		}
	}()
	// Lines: text drawn at another baseline starts a new line (Chromium
	// draws each font run in its own text object, so BT alone is no cue).
	var tm, tlm [6]float64 // text matrix and line matrix: a b c d e f
	ident := [6]float64{1, 0, 0, 1, 0, 0}
	var leading, size float64
	lastY, shown := 0.0, false
	moveLine := func(tx, ty float64) {
		tlm[4], tlm[5] = tx*tlm[0]+ty*tlm[2]+tlm[4], tx*tlm[1]+ty*tlm[3]+tlm[5]
		tm = tlm
	}
	baseline := func() {
		y, tol := tm[5], max(1, 0.5*size*max(abs(tm[3]), abs(tm[1])))
		if shown && abs(y-lastY) > tol {
			emit("\n")
		}
		lastY, shown = y, true
	}
	num := func(v lpdf.Value) float64 { return v.Float64() }
	ops := 0
	lpdf.Interpret(contents, func(stk *lpdf.Stack, op string) {
		if ops++; ops%256 == 0 {
			if err := w.ctx.Err(); err != nil {
				panic(abort{err})
			}
		}
		args := make([]lpdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			tm, tlm = ident, ident
		case "Tm":
			if len(args) == 6 {
				for i := range tlm {
					tlm[i] = num(args[i])
				}
				tm = tlm
			}
		case "Td", "TD":
			if len(args) == 2 {
				if op == "TD" {
					leading = -num(args[1])
				}
				moveLine(num(args[0]), num(args[1]))
			}
		case "TL":
			if len(args) == 1 {
				leading = num(args[0])
			}
		case "T*":
			moveLine(0, -leading)
		case "Tf":
			enc = nil
			if len(args) == 2 {
				size = num(args[1])
				name := args[0].Name()
				if f, ok := fonts[name]; ok {
					m, seen := maps[name]
					if !seen {
						m = readToUnicode(f.V.Key("ToUnicode"), scratchDict(pg, name))
						maps[name] = m
					}
					if m != nil {
						enc = m
					} else {
						enc = f.Encoder()
					}
				}
			}
		case "Tj":
			if len(args) == 1 {
				baseline()
				show(args[0].RawString())
			}
		case "'": // next line, then show
			if len(args) == 1 {
				moveLine(0, -leading)
				baseline()
				show(args[0].RawString())
			}
		case "\"": // spacing, next line, then show
			if len(args) == 3 {
				moveLine(0, -leading)
				baseline()
				show(args[2].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				baseline()
				for i := 0; i < args[0].Len(); i++ {
					switch x := args[0].Index(i); x.Kind() {
					case lpdf.String:
						show(x.RawString())
					case lpdf.Integer, lpdf.Real:
						if x.Float64() < -wordGap { // a gap this wide is a space not drawn
							emit(" ")
						}
					}
				}
			}
		}
	})
	return b.String(), nil
}

// asCap reports a cap that stopped the walk.
func asCap(err error) (*capError, bool) {
	var c *capError
	ok := errors.As(err, &c)
	return c, ok
}
