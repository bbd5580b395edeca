package pdf

import (
	"context"
	"io"

	lpdf "github.com/ledongthuc/pdf"
)

// meter counts the decoded bytes of the streams a page will read, before
// the library parses them: each stream is decoded once into a scanner that
// keeps nothing (constant memory), stopping at the cap, so a bomb costs at
// most the cap's worth of inflating, never its full size.
type meter struct {
	ctx       context.Context
	lim       limits
	page, doc int64
}

// startPage resets the page's count.
func (m *meter) startPage() { m.page = 0 }

// stream decodes v (a stream, or an array of streams as /Contents may be)
// and counts it against the caps, and checks it for runs of operands no
// operator consumes (content streams and CMaps are both parsed that way).
func (m *meter) stream(v lpdf.Value) error {
	if v.Kind() == lpdf.Array {
		for i := 0; i < v.Len(); i++ {
			if err := m.stream(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	if v.Kind() != lpdf.Stream {
		return nil
	}
	rd := v.Reader()
	defer rd.Close()
	sc := &operandScanner{}
	buf := make([]byte, 32*1024)
	for {
		if err := m.ctx.Err(); err != nil {
			return err
		}
		n, err := rd.Read(buf)
		m.page += int64(n)
		m.doc += int64(n)
		if m.page > m.lim.pageDecoded {
			return &capError{what: "decoded streams of the page", key: keyPageDecodedMb, limit: m.lim.pageDecoded >> 20, unit: "MB"}
		}
		if m.doc > m.lim.docDecoded {
			return &capError{what: "decoded streams of the document", key: keyDocDecodedMb, limit: m.lim.docDecoded >> 20, unit: "MB"}
		}
		if !sc.scan(buf[:n]) {
			return &capError{what: "operands without an operator", key: "built-in", limit: maxOperands, unit: "operands"}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
