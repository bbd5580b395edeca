package tools

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Block is one content block of a tool result: {type:"text", text} or
// {type:"image", data:<base64>, mimeType}.
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// MarshalJSON always writes "text" on text blocks (an empty text is still a
// text) and never on image blocks.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Type == "text" {
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text})
	}
	type plain Block
	return json.Marshal(plain(b))
}

// TextBlock is a text content block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ImageBlock is an image content block carrying data base64-encoded.
func ImageBlock(data []byte, mimeType string) Block {
	return Block{Type: "image", Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// Result is the agent tool-result object every tool returns:
// {content:[...blocks], details:<any JSON>}. Details is omitted when nil.
type Result struct {
	Content []Block `json:"content"`
	Details any     `json:"details,omitempty"`
}

// TextResult is one text block plus details (OpenClaw's textResult).
func TextResult(text string, details any) *Result {
	return &Result{Content: []Block{TextBlock(text)}, Details: details}
}

// JSONResult is one text block holding payload as indented JSON, with the
// payload itself as details (OpenClaw's jsonResult).
func JSONResult(payload any) (*Result, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // JSON.stringify leaves <, > and & alone
	enc.SetIndent("", "  ")
	if err := enc.Encode(payload); err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	return &Result{Content: []Block{TextBlock(text)}, Details: payload}, nil
}
