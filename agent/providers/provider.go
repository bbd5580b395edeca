// Package providers speaks to model providers: OpenAI-compatible chat
// completions (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter) and Anthropic
// Messages. One Provider interface serves the image and pdf tools now and
// the agent loop and cron later, so every caller gets the same streaming,
// cancellation and error wording.
package providers

import "context"

// Wire APIs named by models.providers.<id>.api.
const (
	APIOpenAICompletions = "openai-completions"
	APIAnthropicMessages = "anthropic-messages"
)

// Part is one piece of a message's content: text, an image, or a
// document (a PDF sent whole to providers that read them natively).
type Part struct {
	Text string
	// Image bytes and their media type ("image/png"); set for image parts.
	Image     []byte
	MediaType string
	// Document bytes (MediaType "application/pdf"); set for document parts.
	Document []byte
	Name     string
}

// TextPart, ImagePart and DocumentPart build parts.
func TextPart(s string) Part                    { return Part{Text: s} }
func ImagePart(mediaType string, b []byte) Part { return Part{Image: b, MediaType: mediaType} }
func DocumentPart(mediaType, name string, b []byte) Part {
	return Part{Document: b, MediaType: mediaType, Name: name}
}

// IsImage reports whether the part carries an image.
func (p Part) IsImage() bool { return p.Image != nil }

// IsDocument reports whether the part carries a document.
func (p Part) IsDocument() bool { return p.Document != nil }

// Message is one turn. Role is "user", "assistant" or "tool". An assistant
// turn may carry ToolCalls; a tool turn answers ToolCallID.
type Message struct {
	Role       string
	Parts      []Part
	ToolCalls  []ToolCall
	ToolCallID string
}

// ToolDef describes a tool the model may call; Parameters is a JSON schema.
type ToolDef struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ToolCall is a call the model asked for; Arguments is the raw JSON text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Delta is one streamed increment: text, or a fragment of tool call Index
// (ID and Name arrive with its first fragment, Arguments piecewise).
type Delta struct {
	Text      string
	ToolIndex int
	ToolCall  *ToolCall
}

// Request is one chat call.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int
	// OnDelta, when set, streams the answer: it is called for every
	// increment, in order, on the caller's goroutine.
	OnDelta func(Delta)
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Response is the assembled answer.
type Response struct {
	Model      string
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage
}

// Provider is one configured model provider.
type Provider interface {
	// ID is the provider's id in models.providers.
	ID() string
	// Chat sends req and returns the answer; it streams through
	// req.OnDelta when set, and stops when ctx is done.
	Chat(ctx context.Context, req Request) (*Response, error)
}
