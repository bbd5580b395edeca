package pdf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// cancelAt cancels its context once a read reaches offset at: the file's
// content stream, so the cancel lands inside page parsing.
type cancelAt struct {
	r       io.ReaderAt
	at, end int64
	cancel  context.CancelFunc
}

func (c *cancelAt) ReadAt(p []byte, off int64) (int, error) {
	if off < c.end && off+int64(len(p)) > c.at {
		c.cancel()
	}
	return c.r.ReadAt(p, off)
}

// Cancelling while a page's content is being read stops the extraction
// with the context's error, not with the page's text.
func TestContextHonouredInsidePage(t *testing.T) {
	content := strings.Repeat("BT /F1 12 Tf 72 720 Td (word) Tj ET\n", 20000)
	doc := "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
		"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
		"3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>\nendobj\n4 0 obj\n<< /Length " +
		itoa(len(content)) + " >>\nstream\n"
	at := int64(len(doc)) + 1000
	end := int64(len(doc) + len(content))
	doc += content + "\nendstream\nendobj\n"
	xref := len(doc)
	var offs []int
	for i := 1; i <= 4; i++ {
		offs = append(offs, strings.Index(doc, itoa(i)+" 0 obj"))
	}
	doc += "xref\n0 5\n0000000000 65535 f \n"
	for _, o := range offs {
		doc += pad10(o) + " 00000 n \n"
	}
	doc += "trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n" + itoa(xref) + "\n%%EOF\n"

	ex, err := extract(context.Background(), strings.NewReader(doc), int64(len(doc)), nil, 20, loadLimits(nil))
	if err != nil || !strings.Contains(ex.Text, "word") {
		t.Fatalf("uncancelled: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &cancelAt{r: bytes.NewReader([]byte(doc)), at: at, end: end, cancel: cancel}
	ex, err = extract(ctx, r, int64(len(doc)), nil, 20, loadLimits(nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled inside the page: got %v (text %d bytes), want context.Canceled", err, len(textOf(ex)))
	}
}

func textOf(ex *extraction) string {
	if ex == nil {
		return ""
	}
	return ex.Text
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func pad10(n int) string { return strings.Repeat("0", 10-len(itoa(n))) + itoa(n) }
