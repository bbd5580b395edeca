package mcpclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Block is one result block as OpenClaw's agent results carry them: text,
// or an image with base64 data. MCP's other kinds become text that says
// what they were (audio, resource links, embedded resources).
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// maxInlineResource caps the text of an embedded resource kept inline.
const maxInlineResource = 100_000

// Blocks converts a tool result's content. A result with structured
// content and no content gets that JSON as its text.
func Blocks(res *mcp.CallToolResult) []Block {
	var out []Block
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			out = append(out, Block{Type: "text", Text: v.Text})
		case *mcp.ImageContent:
			out = append(out, Block{Type: "image", Data: base64.StdEncoding.EncodeToString(v.Data), MimeType: v.MIMEType})
		case *mcp.AudioContent:
			out = append(out, Block{Type: "text", Text: fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data))})
		case *mcp.ResourceLink:
			text := "Resource link: " + v.URI
			if v.Name != "" {
				text += " (" + v.Name + ")"
			}
			if v.MIMEType != "" {
				text += " " + v.MIMEType
			}
			if v.Description != "" {
				text += ": " + v.Description
			}
			out = append(out, Block{Type: "text", Text: text})
		case *mcp.EmbeddedResource:
			out = append(out, Block{Type: "text", Text: resourceText(v.Resource)})
		default:
			b, _ := json.Marshal(c)
			out = append(out, Block{Type: "text", Text: string(b)})
		}
	}
	if len(out) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		out = append(out, Block{Type: "text", Text: string(b)})
	}
	return out
}

func resourceText(r *mcp.ResourceContents) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Blob != nil || r.Text == "" {
		return fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
	text := r.Text
	if len(text) > maxInlineResource {
		text = text[:maxInlineResource] + "\n[truncated]"
	}
	return fmt.Sprintf("Resource %s:\n%s", r.URI, text)
}

// Text is the result's text blocks joined by newlines (images named).
func Text(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "image" {
			parts = append(parts, "[image "+b.MimeType+"]")
			continue
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}
