package pdf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
	_ "github.com/openclaw-go/openclaw/tools/pdf"
)

// page is one page of a generated PDF: lines of text (drawn with
// Helvetica, one text object each) and/or a 1x1 image.
type page struct {
	lines []string
	image bool
}

// buildPDF writes a minimal valid PDF by hand: catalog, page tree, pages
// with content streams, one standard font, an optional image XObject, and
// an exact cross-reference table.
func buildPDF(pages []page) []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled below
	tree := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	img := add("<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream")
	var kids []string
	for _, pg := range pages {
		var c strings.Builder
		y := 720
		for _, l := range pg.lines {
			esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(l)
			fmt.Fprintf(&c, "BT /F1 12 Tf 72 %d Td (%s) Tj ET\n", y, esc)
			y -= 16
		}
		if pg.image {
			c.WriteString("q 200 0 0 200 72 300 cm /Im1 Do Q\n")
		}
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
		p := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "+
			"/Resources << /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >> /Contents %d 0 R >>",
			tree, font, img, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree)
	objs[tree-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

func writePDF(t *testing.T, dir, name string, pages []page) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buildPDF(pages), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func newEnv(t *testing.T) (*tools.Env, string) {
	dir := t.TempDir()
	return &tools.Env{Config: config.Empty(), StateDir: t.TempDir(), Workspace: dir}, dir
}

func invoke(t *testing.T, env *tools.Env, params map[string]any) (gjson.Result, error) {
	t.Helper()
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(context.Background(), env, tools.Call{ID: "pdf", Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out), nil
}

func TestExtractsTextAndSaysAnalysisNeedsAModel(t *testing.T) {
	env, dir := newEnv(t)
	writePDF(t, dir, "report.pdf", []page{{lines: []string{"Quarterly report (draft)", "Revenue grew by 12 percent."}}})
	r, err := invoke(t, env, map[string]any{"pdf": "report.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Get("content.0.text").String()
	// No prompt asked: the note says what a question would need, not that
	// "the prompt" (there is none) needs a model.
	for _, want := range []string{"Quarterly report (draft)", "Revenue grew by 12 percent.",
		"Text extraction only (no prompt given): to ask about the PDF, give a prompt and set agents.defaults.pdfModel"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "answering the prompt") {
		t.Errorf("no prompt was given, yet the text speaks of answering it:\n%s", text)
	}
	r, err = invoke(t, env, map[string]any{"pdf": "report.pdf", "prompt": "What grew?"})
	if err != nil || !strings.Contains(r.Get("content.0.text").String(), "answering the prompt needs a model") {
		t.Errorf("with a prompt: %v %s", err, r.Get("content.0.text").String())
	}
	if got := r.Get("details.text").String(); got != "Quarterly report (draft)\nRevenue grew by 12 percent." {
		t.Errorf("details.text %q", got)
	}
	if r.Get("details.pdfs.0.pageCount").Int() != 1 || !r.Get("details.pdfs.0.textLayer").Bool() {
		t.Errorf("details %s", r.Get("details").Raw)
	}
	if r.Get("details.native").Bool() || r.Get("details.pdf").String() != "report.pdf" {
		t.Errorf("details %s", r.Get("details").Raw)
	}
}

func TestPageRangesAndCaps(t *testing.T) {
	env, dir := newEnv(t)
	var pages []page
	for i := 1; i <= 25; i++ {
		pages = append(pages, page{lines: []string{fmt.Sprintf("This is page number %d.", i)}})
	}
	writePDF(t, dir, "long.pdf", pages)
	r, err := invoke(t, env, map[string]any{"pdf": "long.pdf", "pages": "2-3, 5,3"})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Get("details.text").String()
	for _, n := range []int{2, 3, 5} {
		if !strings.Contains(text, fmt.Sprintf("page number %d.", n)) {
			t.Errorf("page %d missing:\n%s", n, text)
		}
	}
	for _, n := range []int{1, 4, 6} {
		if strings.Contains(text, fmt.Sprintf("page number %d.", n)) {
			t.Errorf("page %d extracted:\n%s", n, text)
		}
	}
	if got := r.Get("details.pdfs.0.pages").Raw; got != "[2,3,5]" {
		t.Errorf("pages %s", got)
	}
	// Without pages, the first 20 are read and the rest are named, not
	// silently dropped.
	r, err = invoke(t, env, map[string]any{"pdf": "long.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Get("details.pdfs.0.pages").Array()); n != 20 {
		t.Errorf("%d pages extracted, want 20", n)
	}
	if !strings.Contains(r.Get("content.0.text").String(), "not extracted: 21-25") {
		t.Errorf("cap not said:\n%s", r.Get("content.0.text").String())
	}
	// pdfMaxPages from config.
	env.Config.Doc["agents"] = map[string]any{"defaults": map[string]any{"pdfMaxPages": 2}}
	r, err = invoke(t, env, map[string]any{"pdf": "long.pdf", "pages": "1-4,30"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Get("details.pdfs.0.pages").Raw; got != "[1,2]" {
		t.Errorf("capped pages %s", got)
	}
	if got := r.Get("details.pdfs.0.missing").Raw; got != "[30]" {
		t.Errorf("missing %s", got)
	}
	// Bad ranges are usage errors.
	for _, bad := range []string{"0", "3-1", "a", ","} {
		_, err := invoke(t, env, map[string]any{"pdf": "long.pdf", "pages": bad})
		if te := tools.AsError(err); te == nil || te.ExitCode() != 2 {
			t.Errorf("pages %q: %v", bad, err)
		}
	}
}

func TestScannedPDFSaysItHasNoTextLayer(t *testing.T) {
	env, dir := newEnv(t)
	writePDF(t, dir, "scan.pdf", []page{{image: true}, {image: true}})
	r, err := invoke(t, env, map[string]any{"pdf": "scan.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Get("content.0.text").String(), "No text layer found on page(s) 1-2") {
		t.Errorf("text:\n%s", r.Get("content.0.text").String())
	}
	if r.Get("details.pdfs.0.textLayer").Bool() {
		t.Errorf("textLayer true for a scan")
	}
	// A mixed document names the image-only page.
	writePDF(t, dir, "mixed.pdf", []page{{lines: []string{"Cover text"}}, {image: true}})
	r, err = invoke(t, env, map[string]any{"pdf": "mixed.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Get("content.0.text").String(), "Page(s) 2 have no text layer") {
		t.Errorf("mixed:\n%s", r.Get("content.0.text").String())
	}
}

func TestRefusals(t *testing.T) {
	env, dir := newEnv(t)
	writePDF(t, dir, "a.pdf", []page{{lines: []string{"A"}}})
	if err := os.WriteFile(filepath.Join(dir, "junk.pdf"), []byte("not a pdf at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		params map[string]any
		code   int
		msg    string
	}{
		{map[string]any{}, 2, "pdf required: provide a path or URL to a PDF document"},
		{map[string]any{"pdf": "ftp://example.com/a.pdf"}, 2, "Unsupported PDF reference"},
		{map[string]any{"pdf": "missing.pdf"}, 1, "PDF not found: missing.pdf"},
		{map[string]any{"pdf": "junk.pdf"}, 1, "not a readable PDF"},
		{map[string]any{"pdf": "a.pdf", "maxBytesMb": 0.0001}, 2, "PDF too large"},
	}
	for _, c := range cases {
		_, err := invoke(t, env, c.params)
		te := tools.AsError(err)
		if te == nil || te.ExitCode() != c.code || !strings.Contains(te.Message, c.msg) {
			t.Errorf("%v: got %v, want exit %d and %q", c.params, err, c.code, c.msg)
		}
	}
	var many []string
	for i := range 11 {
		many = append(many, fmt.Sprintf("f%d.pdf", i))
	}
	r, err := invoke(t, env, map[string]any{"pdfs": many})
	if err != nil || r.Get("details.error").String() != "too_many_pdfs" {
		t.Errorf("11 pdfs: %v %s", err, r.Raw)
	}
	// file:// URLs and several PDFs work.
	writePDF(t, dir, "b.pdf", []page{{lines: []string{"Bee"}}})
	r, err = invoke(t, env, map[string]any{"pdf": "file://" + filepath.Join(dir, "a.pdf"), "pdfs": []string{"b.pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Get("details.text").String(); !strings.Contains(text, "A") || !strings.Contains(text, "=== b.pdf ===\nBee") {
		t.Errorf("two pdfs:\n%s", text)
	}
}
