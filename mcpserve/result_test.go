package mcpserve

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func writePNG(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

func result(t *testing.T, path string) []byte {
	b, err := json.Marshal(map[string]any{"content": []map[string]any{{"type": "text", "text": "Screenshot of t1\nMEDIA:" + path}}, "details": map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestResultMediaImage(t *testing.T) {
	dir := t.TempDir()
	p, data := writePNG(t, dir)
	res := toResult(result(t, p), Options{})
	if len(res.Content) != 2 {
		t.Fatalf("content %#v", res.Content)
	}
	txt := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(txt, "Saved image: "+p+" (image/png)") || strings.Contains(txt, "MEDIA:") {
		t.Errorf("text %q", txt)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || !bytes.Equal(img.Data, data) || img.MIMEType != "image/png" {
		t.Errorf("image block %#v", res.Content[1])
	}
	if res.StructuredContent != nil {
		t.Errorf("structuredContent set by default: %v", res.StructuredContent)
	}
}

func TestResultMediaOmitAndCap(t *testing.T) {
	dir := t.TempDir()
	p, data := writePNG(t, dir)
	res := toResult(result(t, p), Options{OmitImages: true})
	if len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, p) {
		t.Errorf("omit: %#v", res.Content)
	}
	res = toResult(result(t, p), Options{MaxImageBytes: int64(len(data) - 1)})
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || link.URI != "file://"+p || link.MIMEType != "image/png" || *link.Size != int64(len(data)) {
		t.Errorf("over the cap: %#v", res.Content[1])
	}
	pdf := filepath.Join(dir, "page.pdf")
	os.WriteFile(pdf, []byte("%PDF-1.4\n"), 0o600)
	res = toResult(result(t, pdf), Options{})
	if link, ok := res.Content[1].(*mcp.ResourceLink); !ok || link.MIMEType != "application/pdf" {
		t.Errorf("pdf: %#v", res.Content)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Saved PDF: "+pdf) {
		t.Errorf("pdf text %q", res.Content[0].(*mcp.TextContent).Text)
	}
}

func TestResultShapes(t *testing.T) {
	res := toResult([]byte(`{"ok":true,"n":3}`), Options{})
	if res.Content[0].(*mcp.TextContent).Text != `{"ok":true,"n":3}` {
		t.Errorf("plain JSON: %#v", res.Content)
	}
	long := strings.Repeat("x", 50)
	b, _ := json.Marshal(map[string]any{"content": []map[string]any{{"type": "text", "text": long}}})
	res = toResult(b, Options{MaxResultChars: 20})
	got := res.Content[0].(*mcp.TextContent).Text
	if !strings.HasPrefix(got, strings.Repeat("x", 20)+"\n…truncated, 30 more chars") {
		t.Errorf("truncated %q", got)
	}
	b, _ = json.Marshal(map[string]any{"content": []map[string]any{{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}}})
	res = toResult(b, Options{})
	if img, ok := res.Content[0].(*mcp.ImageContent); !ok || string(img.Data) != "hello" {
		t.Errorf("inline image %#v", res.Content)
	}
	res = toResult(b, Options{MaxImageBytes: 2})
	if txt, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(txt.Text, "over --max-image-bytes") {
		t.Errorf("inline image over the cap %#v", res.Content)
	}
}
