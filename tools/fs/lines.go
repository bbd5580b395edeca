package fs

import (
	"bufio"
	"context"
	"errors"
	"io"
)

// lineReader reads a text file line by line with memory bounded by what
// the caller keeps, whatever the length of the lines: the part of a line
// past keep bytes is only counted.
type lineReader struct {
	r *bufio.Reader
	// budget is how many more bytes the reader may scan (<0: no limit).
	budget int64
	// ctx ends a long scan (a far offset in a huge file); it is checked
	// every checkEvery bytes.
	ctx     context.Context
	scanned int64
}

const checkEvery = 1 << 20

// line is one line read: its first bytes, and its full length. A "\r"
// before the ending "\n" is not part of the line (CRLF reads as LF).
type line struct {
	text []byte
	n    int64
	// nl is true when the line ended with "\n" (not at the end of file).
	nl bool
}

// errBudget says the budget ran out: the line returned with it is
// incomplete (its n is a lower bound), and whether more lines follow is
// unknown.
var errBudget = errors.New("scan budget exhausted")

// next reads the next line, keeping at most keep bytes of it. ok is false
// at the end of the file.
func (lr *lineReader) next(keep int) (ln line, ok bool, err error) {
	var last byte
	for {
		if lr.budget == 0 {
			return ln, true, errBudget
		}
		chunk, err := lr.r.ReadSlice('\n')
		if lr.budget > 0 && int64(len(chunk)) > lr.budget {
			// Stop at the budget: never scan more than allowed.
			chunk, err = chunk[:lr.budget], errBudget
		}
		if lr.budget > 0 {
			lr.budget -= int64(len(chunk))
		}
		if lr.scanned += int64(len(chunk)); lr.scanned >= checkEvery && lr.ctx != nil {
			lr.scanned = 0
			if cerr := lr.ctx.Err(); cerr != nil {
				return ln, ok, cerr
			}
		}
		if len(chunk) > 0 {
			ok = true
		}
		body, ended := chunk, err == nil
		if ended {
			body = chunk[:len(chunk)-1]
		}
		if room := keep - len(ln.text); room > 0 {
			ln.text = append(ln.text, body[:min(room, len(body))]...)
		}
		ln.n += int64(len(body))
		if len(body) > 0 {
			last = body[len(body)-1]
		}
		switch {
		case ended:
			if last == '\r' {
				ln.n--
				if int64(len(ln.text)) > ln.n {
					ln.text = ln.text[:ln.n]
				}
			}
			ln.nl = true
			return ln, true, nil
		case err == io.EOF:
			return ln, ok, nil
		case err == errBudget:
			return ln, true, errBudget
		case err != bufio.ErrBufferFull:
			return ln, ok, err
		}
	}
}

// skip reads past the next line without keeping any of it.
func (lr *lineReader) skip() (ok bool, err error) {
	_, ok, err = lr.next(0)
	return ok, err
}

// tally counts the selected lines (from the offset, up to the limit) and
// the lines after them, as far as the budget lets the reader scan.
type tally struct {
	lines int   // selected lines
	bytes int64 // their length joined by "\n"
	after int   // lines after the selection
	known bool  // the end of the file was reached: the counts are exact
}

func (tl *tally) add(n int64) {
	if tl.lines > 0 {
		tl.bytes++
	}
	tl.bytes += n
	tl.lines++
}

// countRest counts the remaining lines: left more belong to the selection
// (-1: all of them), the others come after it.
func (lr *lineReader) countRest(tl *tally, left int) error {
	for {
		ln, ok, err := lr.next(0)
		if err != nil && err != errBudget {
			return err
		}
		if !ok {
			tl.known = true
			return nil
		}
		if left != 0 {
			tl.add(ln.n)
			left--
		} else {
			tl.after++
		}
		if err == errBudget {
			return nil
		}
	}
}
