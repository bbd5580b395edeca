package providers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
)

// anthropicVersion is the API version header the Messages API requires.
const anthropicVersion = "2023-06-01"

// defaultMaxTokens fills Anthropic's required max_tokens when unset.
const defaultMaxTokens = 4096

// anthropic speaks the Anthropic Messages API: POST {baseUrl}/v1/messages
// with x-api-key and anthropic-version, streamed as message_start,
// content_block_start/delta/stop, message_delta and message_stop events.
type anthropic struct{ s *Settings }

func (a *anthropic) ID() string { return a.s.ID }

func (a *anthropic) url() string {
	if strings.HasSuffix(a.s.BaseURL, "/v1") {
		return a.s.BaseURL + "/messages"
	}
	return a.s.BaseURL + "/v1/messages"
}

func (a *anthropic) body(req Request) map[string]any {
	var msgs []map[string]any
	for _, m := range req.Messages {
		var blocks []map[string]any
		role := m.Role
		if role == "tool" {
			role = "user"
			blocks = append(blocks, map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": joinText(m.Parts)})
		} else {
			for _, p := range m.Parts {
				if p.IsImage() {
					blocks = append(blocks, map[string]any{"type": "image", "source": map[string]any{
						"type": "base64", "media_type": p.MediaType, "data": base64.StdEncoding.EncodeToString(p.Image)}})
				} else if p.IsDocument() {
					blocks = append(blocks, map[string]any{"type": "document", "source": map[string]any{
						"type": "base64", "media_type": p.MediaType, "data": base64.StdEncoding.EncodeToString(p.Document)}})
				} else if p.Text != "" {
					blocks = append(blocks, map[string]any{"type": "text", "text": p.Text})
				}
			}
			for _, c := range m.ToolCalls {
				var input any = map[string]any{}
				if strings.TrimSpace(c.Arguments) != "" {
					_ = json.Unmarshal([]byte(c.Arguments), &input)
				}
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
			}
		}
		// Consecutive tool results travel in one user turn.
		if n := len(msgs); n > 0 && role == "user" && m.Role == "tool" && msgs[n-1]["role"] == "user" && msgs[n-1]["toolResults"] == true {
			msgs[n-1]["content"] = append(msgs[n-1]["content"].([]map[string]any), blocks...)
			continue
		}
		msg := map[string]any{"role": role, "content": blocks}
		if m.Role == "tool" {
			msg["toolResults"] = true
		}
		msgs = append(msgs, msg)
	}
	for _, m := range msgs {
		delete(m, "toolResults")
	}
	max := req.MaxTokens
	if max <= 0 {
		max = defaultMaxTokens
	}
	body := map[string]any{"model": req.Model, "max_tokens": max, "messages": msgs, "stream": true}
	if req.System != "" {
		body["system"] = req.System
	}
	if len(req.Tools) > 0 {
		var ts []map[string]any
		for _, t := range req.Tools {
			schema := t.Parameters
			if schema == nil {
				schema = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			ts = append(ts, map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema})
		}
		body["tools"] = ts
	}
	return body
}

// anthropicEvent is the union of the streamed event payloads.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Model string `json:"model"`
		Usage struct {
			Input int `json:"input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *struct {
		Output int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a *anthropic) Chat(ctx context.Context, req Request) (*Response, error) {
	resp, err := post(ctx, a.s, a.url(), a.body(req), map[string]string{
		"x-api-key":         a.s.APIKey,
		"anthropic-version": anthropicVersion,
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if isJSON(resp) {
		return nil, a.fromJSON(resp.Body)
	}

	out := &Response{Model: req.Model}
	tools := map[int]int{} // content block index → position in out.ToolCalls
	// Text and arguments grow in builders (+= is quadratic in a long
	// stream), counted against MaxAnswerBytes.
	var text strings.Builder
	var args []*strings.Builder
	var size answerSize
	stopped := false
	err = readSSE(ctx, resp.Body, func(data string) (bool, error) {
		var ev anthropicEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return true, fmt.Errorf("model provider %s: bad stream event: %w", a.s.ID, err)
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				if ev.Message.Model != "" {
					out.Model = ev.Message.Model
				}
				out.Usage.InputTokens = ev.Message.Usage.Input
			}
		case "content_block_start":
			if cb := ev.ContentBlock; cb != nil {
				switch cb.Type {
				case "tool_use":
					if err := size.add(len(cb.ID) + len(cb.Name)); err != nil {
						return true, err
					}
					tools[ev.Index] = len(out.ToolCalls)
					out.ToolCalls = append(out.ToolCalls, ToolCall{ID: cb.ID, Name: cb.Name})
					args = append(args, &strings.Builder{})
					emit(req, Delta{ToolIndex: tools[ev.Index], ToolCall: &ToolCall{ID: cb.ID, Name: cb.Name}})
				case "text":
					if cb.Text != "" {
						if err := size.add(len(cb.Text)); err != nil {
							return true, err
						}
						text.WriteString(cb.Text)
						emit(req, Delta{Text: cb.Text})
					}
				}
			}
		case "content_block_delta":
			if d := ev.Delta; d != nil {
				switch d.Type {
				case "text_delta":
					if err := size.add(len(d.Text)); err != nil {
						return true, err
					}
					text.WriteString(d.Text)
					emit(req, Delta{Text: d.Text})
				case "input_json_delta":
					if i, ok := tools[ev.Index]; ok {
						if err := size.add(len(d.PartialJSON)); err != nil {
							return true, err
						}
						args[i].WriteString(d.PartialJSON)
						emit(req, Delta{ToolIndex: i, ToolCall: &ToolCall{Arguments: d.PartialJSON}})
					}
				}
			}
		case "message_delta":
			if ev.Delta != nil && ev.Delta.StopReason != "" {
				out.StopReason = ev.Delta.StopReason
			}
			if ev.Usage != nil {
				out.Usage.OutputTokens = ev.Usage.Output
			}
		case "message_stop":
			stopped = true
			return true, nil
		case "error":
			msg := "stream error"
			if ev.Error != nil {
				msg = ev.Error.Type + ": " + ev.Error.Message
			}
			return true, failure.Errorf(failure.CodeFailed, "model provider %s: %s", a.s.ID, msg)
		}
		return false, nil
	})
	if err != nil {
		return nil, streamErr(ctx, a.s, err)
	}
	if !stopped {
		return nil, failure.Errorf(failure.CodeFailed, "model provider %s: stream ended before message_stop", a.s.ID)
	}
	out.Text = text.String()
	for i := range out.ToolCalls {
		out.ToolCalls[i].Arguments = args[i].String()
		if strings.TrimSpace(out.ToolCalls[i].Arguments) == "" {
			out.ToolCalls[i].Arguments = "{}"
		}
	}
	return out, nil
}

// fromJSON reports a JSON answer to a streaming request: the API sends one
// only for errors ({type:"error", error:{type, message}}).
func (a *anthropic) fromJSON(r io.Reader) error {
	var ev anthropicEvent
	if err := json.NewDecoder(io.LimitReader(r, maxEventBytes)).Decode(&ev); err == nil && ev.Error != nil {
		return failure.Errorf(failure.CodeFailed, "model provider %s: %s: %s", a.s.ID, ev.Error.Type, ev.Error.Message)
	}
	return failure.Errorf(failure.CodeFailed, "model provider %s: expected an event stream, got JSON", a.s.ID)
}
