package pdf_test

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// assemble writes a PDF of the given objects (object i+1 is objs[i];
// object 1 is the catalog) with an exact cross-reference table.
func assemble(objs []string) []byte {
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
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// onePage is a one-page PDF whose content stream is raw, filtered by
// filters ("" for none), with Helvetica as /F1.
func onePage(raw []byte, filters string) []byte {
	dict := fmt.Sprintf("<< /Length %d", len(raw))
	if filters != "" {
		dict += " /Filter [" + filters + "]"
	}
	return assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		dict + " >>\nstream\n" + string(raw) + "\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	})
}

// deflateSegment is data as complete, byte-aligned, non-final deflate
// blocks with no reference before their start, so segments concatenate.
func deflateSegment(data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Flush()
	return b.Bytes()
}

// bombStream is a zlib stream that inflates to head, n MiB of fill and
// tail, built without compressing n MiB: one MiB's blocks, repeated.
func bombStream(head string, fill byte, n int, tail string) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x78, 0xda})
	b.Write(deflateSegment([]byte(head)))
	mib := deflateSegment(bytes.Repeat([]byte{fill}, 1<<20))
	for range n {
		b.Write(mib)
	}
	var last bytes.Buffer
	w, _ := flate.NewWriter(&last, flate.BestCompression)
	w.Write([]byte(tail))
	w.Close()
	b.Write(last.Bytes())
	sum := adler32.Checksum([]byte(head))
	a := adler32.Checksum(bytes.Repeat([]byte{fill}, 1<<20))
	for range n {
		sum = adlerCombine(sum, a, 1<<20)
	}
	sum = adlerCombine(sum, adler32.Checksum([]byte(tail)), len(tail))
	b.Write(binary.BigEndian.AppendUint32(nil, sum))
	return b.Bytes()
}

// adlerCombine is zlib's adler32_combine: the checksum of A+B from theirs.
func adlerCombine(a1, a2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	s1 := uint64(a1 & 0xffff)
	s2 := rem * s1 % base
	s1 += uint64(a2&0xffff) + base - 1
	s2 += uint64(a1>>16) + uint64(a2>>16) + base - rem
	s1 %= base
	s2 %= base
	return uint32(s1 | s2<<16)
}

func zlibOf(data []byte) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// bombs: a few KB that inflate (Flate of Flate) to 4 GiB, and 470 KB that
// inflate to 470 MiB, each one string shown with Tj: unbounded, the parser
// holds the whole string and then its text.
func bombs() map[string][]byte {
	const head, tail = "BT /F1 12 Tf 72 720 Td (", ") Tj ET"
	return map[string][]byte{
		"nested-4GiB.pdf": onePage(zlibOf(bombStream(head, 'A', 4096, tail)), "/FlateDecode /FlateDecode"),
		"flat-470MiB.pdf": onePage(bombStream(head, 'A', 470, tail), "/FlateDecode"),
	}
}

// A decompression bomb stops at the decoded-bytes cap with a clear error
// (exit 2, the cap's key in details), having decoded only about the cap's
// worth: the bytes allocated while reading it stay far below what it
// inflates to.
func TestDecompressionBombsStopAtTheCap(t *testing.T) {
	env, dir := newEnv(t)
	for name, b := range bombs() {
		t.Logf("%s: %d bytes", name, len(b))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := invokeGuarded(t, env, map[string]any{"pdf": name})
		runtime.ReadMemStats(&after)
		te := tools.AsError(err)
		if te == nil || te.Code != tools.CodeInvalidParams || !strings.Contains(te.Message, "agents.defaults.pdfMaxDecodedMbPerPage") ||
			!strings.Contains(te.Message, "decompression bomb") {
			t.Fatalf("%s: got %v, want the decoded-bytes cap", name, err)
		}
		if d, _ := json.Marshal(te.Details); !strings.Contains(string(d), `"cap":"agents.defaults.pdfMaxDecodedMbPerPage"`) {
			t.Errorf("%s: details %s", name, d)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MB reading it, want < 64 MB (the page cap is 32 MB)", name, alloc>>20)
		}
	}
}

// The caps are config keys: a lower page cap stops a stream that fits the
// default, the document caps add up the pages, and within them the same
// files read.
func TestCapsAreConfigurable(t *testing.T) {
	env, dir := newEnv(t)
	spaces := bombStream("BT /F1 12 Tf 72 720 Td (x) Tj ET", ' ', 3, "") // 3 MiB, text "x"
	letters := bombStream("BT /F1 12 Tf 72 720 Td (", 'A', 1, ") Tj ET") // 1 MiB of text
	os.WriteFile(filepath.Join(dir, "spaces.pdf"), onePage(spaces, "/FlateDecode"), 0o644)
	os.WriteFile(filepath.Join(dir, "spaces2.pdf"), onePageN(2, spaces), 0o644)
	os.WriteFile(filepath.Join(dir, "letters2.pdf"), onePageN(2, letters), 0o644)
	defaults := func(kv map[string]any) {
		env.Config = &config.Config{Doc: map[string]any{"agents": map[string]any{"defaults": kv}}}
	}
	cases := []struct {
		pdf, key string
		cfg      map[string]any
	}{
		{"spaces.pdf", "agents.defaults.pdfMaxDecodedMbPerPage", map[string]any{"pdfMaxDecodedMbPerPage": 2}},
		{"spaces2.pdf", "agents.defaults.pdfMaxDecodedMb", map[string]any{"pdfMaxDecodedMb": 5}},
		{"letters2.pdf", "agents.defaults.pdfMaxTextCharsPerPage", map[string]any{}}, // 1 MiB > 1,000,000
		{"letters2.pdf", "agents.defaults.pdfMaxTextChars", map[string]any{"pdfMaxTextCharsPerPage": 2 << 20, "pdfMaxTextChars": 3 << 19}},
	}
	for _, c := range cases {
		defaults(c.cfg)
		_, err := invokeGuarded(t, env, map[string]any{"pdf": c.pdf})
		if te := tools.AsError(err); te == nil || te.Code != tools.CodeInvalidParams || !strings.Contains(te.Message, c.key) {
			t.Errorf("%s with %v: got %v, want the %s cap", c.pdf, c.cfg, err, c.key)
		}
	}
	defaults(map[string]any{"pdfMaxTextCharsPerPage": 2 << 20})
	for _, name := range []string{"spaces.pdf", "spaces2.pdf", "letters2.pdf"} {
		r, err := invokeGuarded(t, env, map[string]any{"pdf": name})
		if err != nil {
			t.Fatalf("%s within the caps: %v", name, err)
		}
		got := r.Get("details.text").String()
		pages := 1
		if strings.HasSuffix(name, "2.pdf") {
			pages = 2
		}
		if letters := strings.HasPrefix(name, "letters"); letters && strings.Count(got, "A") != pages<<20 ||
			!letters && strings.Count(got, "x") != pages {
			t.Errorf("%s: text %.60q (%d bytes), want %d page(s) of it", name, got, len(got), pages)
		}
	}
}

// onePageN is a PDF of n pages that share one content stream (Flate).
func onePageN(n int, raw []byte) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(raw), raw)}
	var kids []string
	for range n {
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return assemble(objs)
}

// A content stream of operands that no operator consumes is refused
// before the parser holds them all.
func TestOperandFloodIsRefused(t *testing.T) {
	env, dir := newEnv(t)
	flood := zlibOf([]byte(strings.Repeat("1 ", 300_000) + "BT /F1 12 Tf 72 720 Td (x) Tj ET"))
	os.WriteFile(filepath.Join(dir, "flood.pdf"), onePage(flood, "/FlateDecode"), 0o644)
	_, err := invokeGuarded(t, env, map[string]any{"pdf": "flood.pdf"})
	if te := tools.AsError(err); te == nil || te.Code != tools.CodeInvalidParams || !strings.Contains(te.Message, "operands without an operator") {
		t.Fatalf("got %v, want the operand cap", err)
	}
	// The same operands, each consumed, are fine.
	fine := zlibOf([]byte(strings.Repeat("1 0 0 RG ", 100_000) + "BT /F1 12 Tf 72 720 Td (fine) Tj ET"))
	os.WriteFile(filepath.Join(dir, "fine.pdf"), onePage(fine, "/FlateDecode"), 0o644)
	if r, err := invokeGuarded(t, env, map[string]any{"pdf": "fine.pdf"}); err != nil || !strings.Contains(r.Get("details.text").String(), "fine") {
		t.Fatalf("fine.pdf: %v %s", err, r.Get("details.text"))
	}
}

// A Pages node that lists itself (the 610-byte PDF of issue 17: the
// library's page lookup loops forever) and a tree deeper than any real
// one are errors.
func TestPageTreeCycleAndDepth(t *testing.T) {
	env, dir := newEnv(t)
	content := "<< /Length 35 >>\nstream\nBT /F1 12 Tf 72 720 Td (x) Tj ET\nendstream"
	cyclic := assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		content,
	})
	t.Logf("cyclic.pdf: %d bytes", len(cyclic))
	os.WriteFile(filepath.Join(dir, "cyclic.pdf"), cyclic, 0o644)
	// A chain of 100 Pages nodes, each with one kid.
	deep := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for i := 2; i < 102; i++ {
		deep = append(deep, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", i+1))
	}
	deep = append(deep, "<< /Type /Page /Contents 104 0 R >>", content)
	os.WriteFile(filepath.Join(dir, "deep.pdf"), assemble(deep), 0o644)
	// A page whose /Parent chain loops, with no /Resources on the way.
	parentLoop := assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		content,
	})
	os.WriteFile(filepath.Join(dir, "parent-loop.pdf"), parentLoop, 0o644)
	for name, want := range map[string]string{"cyclic.pdf": "page tree has a cycle", "deep.pdf": "page tree deeper than 64 levels",
		"parent-loop.pdf": "(/Parent chain)"} {
		_, err := invokeGuarded(t, env, map[string]any{"pdf": name})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
}

// invokeGuarded is invoke that fails the test instead of hanging it when
// the call does not return (the bugs these tests catch loop forever).
func invokeGuarded(t *testing.T, env *tools.Env, params map[string]any) (res resultT, err error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = invokeCtx(ctx, env, params)
	}()
	select {
	case <-done:
		return res, err
	case <-time.After(2 * time.Minute):
		t.Fatalf("pdf %v did not return", params)
		return res, nil
	}
}

type resultT = gjson.Result

func invokeCtx(ctx context.Context, env *tools.Env, params map[string]any) (gjson.Result, error) {
	b, _ := json.Marshal(params)
	out, err := tools.Invoke(ctx, env, tools.Call{ID: "pdf", Args: b})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(out), nil
}
