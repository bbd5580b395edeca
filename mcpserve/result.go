package mcpserve

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/atomicfile"
)

// inlineImages are the image types clients render inline.
var inlineImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// toResult maps a registry result ({content:[…], details}) to an MCP
// result: text carries everything (details are not copied into
// structuredContent: clients that see both show only that); a
// MEDIA:<path> line names the file and adds an inline image (capped) or a
// resource_link; inline image blocks pass (capped). A result of another
// shape is its JSON as text. Text over MaxResultChars is cut with a note.
func toResult(out []byte, o Options) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	content := gjson.GetBytes(out, "content")
	if !gjson.ValidBytes(out) || !content.IsArray() {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(out)})
		return capText(res, o)
	}
	for _, b := range content.Array() {
		switch b.Get("type").String() {
		case "text":
			res.Content = append(res.Content, textWithMedia(b.Get("text").String(), o)...)
		case "image":
			res.Content = append(res.Content, inlineImage(b.Get("data").String(), b.Get("mimeType").String(), o)...)
		default:
			res.Content = append(res.Content, &mcp.TextContent{Text: b.Raw})
		}
	}
	if len(res.Content) == 0 {
		res.Content = append(res.Content, &mcp.TextContent{Text: ""})
	}
	return capText(res, o)
}

// textWithMedia keeps text, replacing each MEDIA:<path> line by a line
// naming the saved file, plus the file as an image block or a link.
func textWithMedia(text string, o Options) []mcp.Content {
	if !strings.Contains(text, "MEDIA:") {
		return []mcp.Content{&mcp.TextContent{Text: text}}
	}
	lines := strings.Split(text, "\n")
	var extra []mcp.Content
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "MEDIA:") {
			continue
		}
		path := strings.TrimSpace(strings.TrimPrefix(t, "MEDIA:"))
		if path == "" {
			continue
		}
		mt := mediaType(path)
		var size int64 = -1
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		lines[i] = fmt.Sprintf("Saved %s: %s (%s)", kind(mt), path, mt)
		if inlineImages[mt] && o.OmitImages {
			continue // --image-responses omit: the path in the text only
		}
		if inlineImages[mt] && size >= 0 && size <= o.maxImage() {
			if data, err := atomicfile.ReadCapped(path, o.maxImage()); err == nil {
				extra = append(extra, &mcp.ImageContent{Data: data, MIMEType: mt})
				continue
			}
		}
		link := &mcp.ResourceLink{URI: (&url.URL{Scheme: "file", Path: path}).String(), Name: filepath.Base(path), MIMEType: mt}
		if size >= 0 {
			link.Size = &size
		}
		extra = append(extra, link)
	}
	return append([]mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}, extra...)
}

// inlineImage passes a base64 image block, or a note when it is over the
// cap or images are omitted.
func inlineImage(b64, mt string, o Options) []mcp.Content {
	data, err := base64.StdEncoding.DecodeString(b64)
	switch {
	case err != nil:
		return []mcp.Content{&mcp.TextContent{Text: "(an image block that is not base64 was dropped)"}}
	case o.OmitImages:
		return []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("(%s image, %d bytes, omitted: --image-responses omit)", mt, len(data))}}
	case int64(len(data)) > o.maxImage():
		return []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("(%s image, %d bytes, omitted: over --max-image-bytes %d)", mt, len(data), o.maxImage())}}
	}
	return []mcp.Content{&mcp.ImageContent{Data: data, MIMEType: mt}}
}

func mediaType(path string) string {
	if mt := mime.TypeByExtension(strings.ToLower(filepath.Ext(path))); mt != "" {
		mt, _, _ = strings.Cut(mt, ";")
		return mt
	}
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		buf := make([]byte, 512)
		n, _ := f.Read(buf)
		mt, _, _ := strings.Cut(http.DetectContentType(buf[:n]), ";")
		return mt
	}
	return "application/octet-stream"
}

func kind(mt string) string {
	switch {
	case strings.HasPrefix(mt, "image/"):
		return "image"
	case strings.HasPrefix(mt, "video/"):
		return "video"
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	case mt == "application/pdf":
		return "PDF"
	}
	return "file"
}

// capText cuts the text blocks to MaxResultChars in total, saying so.
func capText(res *mcp.CallToolResult, o Options) *mcp.CallToolResult {
	left := o.maxChars()
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		r := []rune(t.Text)
		if len(r) <= left {
			left -= len(r)
			continue
		}
		more := len(r) - left
		t.Text = string(r[:left]) + fmt.Sprintf("\n…truncated, %d more chars (--max-result-chars %d); page with the tool's offset/limit or maxChars", more, o.maxChars())
		left = 0
	}
	return res
}
