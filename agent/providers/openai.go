package providers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/failure"
)

// openAI speaks OpenAI-compatible chat completions:
// POST {baseUrl}/chat/completions with stream:true, SSE chunks carrying
// choices[].delta.content and delta.tool_calls, ended by [DONE].
type openAI struct{ s *Settings }

func (o *openAI) ID() string { return o.s.ID }

func (o *openAI) body(req Request) map[string]any {
	var msgs []map[string]any
	if req.System != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": req.System})
	}
	for _, m := range req.Messages {
		msg := map[string]any{"role": m.Role}
		switch {
		case m.Role == "tool":
			msg["tool_call_id"] = m.ToolCallID
			msg["content"] = joinText(m.Parts)
		case hasImage(m.Parts):
			var parts []map[string]any
			for _, p := range m.Parts {
				if p.IsImage() {
					url := "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Image)
					parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}})
				} else if p.IsDocument() { // OpenAI's file content part
					parts = append(parts, map[string]any{"type": "file", "file": map[string]any{"filename": p.Name,
						"file_data": "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Document)}})
				} else {
					parts = append(parts, map[string]any{"type": "text", "text": p.Text})
				}
			}
			msg["content"] = parts
		default:
			msg["content"] = joinText(m.Parts)
		}
		if len(m.ToolCalls) > 0 {
			var calls []map[string]any
			for _, c := range m.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = calls
			if joinText(m.Parts) == "" {
				msg["content"] = nil
			}
		}
		msgs = append(msgs, msg)
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	if len(req.Tools) > 0 {
		var ts []map[string]any
		for _, t := range req.Tools {
			params := t.Parameters
			if params == nil {
				params = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			ts = append(ts, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": params}})
		}
		body["tools"] = ts
	}
	return body
}

// openAIChunk is one streamed chunk (and, for non-streaming servers, the
// whole answer: message instead of delta).
type openAIChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta        openAIMsg `json:"delta"`
		Message      openAIMsg `json:"message"`
		FinishReason string    `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type openAIMsg struct {
	Content   *string `json:"content"`
	ToolCalls []struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (o *openAI) Chat(ctx context.Context, req Request) (*Response, error) {
	resp, err := post(ctx, o.s, o.s.BaseURL+"/chat/completions", o.body(req), map[string]string{
		"Authorization": "Bearer " + o.s.APIKey,
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()

	out := &Response{Model: req.Model}
	// The text and each call's arguments grow in builders (a string grown
	// by += copies itself per delta: quadratic in a long stream), counted
	// against MaxAnswerBytes.
	var text strings.Builder
	var size answerSize
	calls := map[int]*callParts{}
	apply := func(ch openAIChunk, m func(i int) openAIMsg) error {
		if ch.Error != nil {
			return failure.Errorf(failure.CodeFailed, "model provider %s: %s", o.s.ID, ch.Error.Message)
		}
		if ch.Model != "" {
			out.Model = ch.Model
		}
		if ch.Usage != nil {
			out.Usage = Usage{InputTokens: ch.Usage.Prompt, OutputTokens: ch.Usage.Completion}
		}
		for i, c := range ch.Choices {
			if i > 0 {
				break // we ask for one choice
			}
			d := m(i)
			if d.Content != nil && *d.Content != "" {
				if err := size.add(len(*d.Content)); err != nil {
					return err
				}
				text.WriteString(*d.Content)
				emit(req, Delta{Text: *d.Content})
			}
			for _, tc := range d.ToolCalls {
				if err := size.add(len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)); err != nil {
					return err
				}
				call := calls[tc.Index]
				if call == nil {
					call = &callParts{}
					calls[tc.Index] = call
				}
				if tc.ID != "" {
					call.id = tc.ID
				}
				call.name.WriteString(tc.Function.Name)
				call.args.WriteString(tc.Function.Arguments)
				emit(req, Delta{ToolIndex: tc.Index, ToolCall: &ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			if c.FinishReason != "" {
				out.StopReason = c.FinishReason
			}
		}
		return nil
	}

	if isJSON(resp) { // a server that ignored stream:true
		body, err := readWhole(resp.Body)
		if err != nil {
			return nil, streamErr(ctx, o.s, err)
		}
		var ch openAIChunk
		if err := json.Unmarshal(body, &ch); err != nil {
			return nil, fmt.Errorf("model provider %s: decode answer: %w", o.s.ID, err)
		}
		// A whole message's tool_calls carry no index: each is its own
		// call, by position (streamed deltas name theirs).
		for i := range ch.Choices {
			for j := range ch.Choices[i].Message.ToolCalls {
				ch.Choices[i].Message.ToolCalls[j].Index = j
			}
		}
		if err := apply(ch, func(i int) openAIMsg { return ch.Choices[i].Message }); err != nil {
			return nil, capFailure(o.s, err)
		}
	} else {
		done := false
		err := readSSE(ctx, resp.Body, func(data string) (bool, error) {
			if data == "[DONE]" {
				done = true
				return true, nil
			}
			var ch openAIChunk
			if err := json.Unmarshal([]byte(data), &ch); err != nil {
				return true, fmt.Errorf("model provider %s: bad stream chunk: %w", o.s.ID, err)
			}
			return false, apply(ch, func(i int) openAIMsg { return ch.Choices[i].Delta })
		})
		if err != nil {
			return nil, streamErr(ctx, o.s, err)
		}
		if !done && out.StopReason == "" {
			return nil, failure.Errorf(failure.CodeFailed, "model provider %s: stream ended before [DONE]", o.s.ID)
		}
	}
	out.Text = text.String()
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		c := calls[i]
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.id, Name: c.name.String(), Arguments: c.args.String()})
	}
	return out, nil
}

// callParts is one streamed tool call being assembled.
type callParts struct {
	id         string
	name, args strings.Builder
}

// post sends a JSON body and returns a 2xx response (else a clear error).
func post(ctx context.Context, s *Settings, url string, body any, headers map[string]string) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("model provider %s: encode request: %w", s.ID, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("model provider %s: %w", s.ID, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		hr.Header.Set(k, v)
	}
	for k, v := range s.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := s.client().Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx, s)
		}
		// CodeFailed (exit 1), not CodeUnreachable: exit 5 means "the
		// gateway is unreachable, start it", and a model provider's
		// baseUrl is fixed in the config; `agent` (whose run fails) and
		// the local pdf and image tools then exit alike.
		return nil, failure.Wrap(failure.CodeFailed,
			fmt.Sprintf("model provider %s: %v (check models.providers.%s.baseUrl)", s.ID, err, s.ID), err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, apiError(s, resp.StatusCode, string(msg))
	}
	return resp, nil
}

func ctxErr(ctx context.Context, s *Settings) error {
	if ctx.Err() == context.DeadlineExceeded {
		return failure.Wrap(failure.CodeTimeout, "model provider "+s.ID+": timed out", ctx.Err())
	}
	return failure.Wrap(failure.CodeInterrupted, "model provider "+s.ID+": cancelled", ctx.Err())
}

func streamErr(ctx context.Context, s *Settings, err error) error {
	if ctx.Err() != nil {
		return ctxErr(ctx, s)
	}
	return capFailure(s, err)
}

func isJSON(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	return len(ct) >= 16 && ct[:16] == "application/json"
}

func emit(req Request, d Delta) {
	if req.OnDelta != nil {
		req.OnDelta(d)
	}
}

func joinText(parts []Part) string {
	var b bytes.Buffer
	for _, p := range parts {
		if !p.IsImage() {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// hasImage reports media parts (images or documents), which need the
// array form of content.
func hasImage(parts []Part) bool {
	for _, p := range parts {
		if p.IsImage() || p.IsDocument() {
			return true
		}
	}
	return false
}
