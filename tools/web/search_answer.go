package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
)

// The answer providers (Perplexity Sonar, Gemini, Grok, Kimi) synthesise
// an answer with citations instead of a result list.

func answer(model, content string, citations []string) map[string]any {
	if citations == nil {
		citations = []string{}
	}
	return map[string]any{"model": model, "content": wrapSnippet(content), "citations": citations}
}

func bearer(key string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	return h
}

func addUnique(list []string, seen map[string]bool, u string) []string {
	if u != "" && !seen[u] {
		seen[u] = true
		list = append(list, u)
	}
	return list
}

// perplexityBase infers the API from the key: pplx- keys (or
// PERPLEXITY_API_KEY) speak to Perplexity, the rest to OpenRouter.
func perplexityBase(key string) string {
	if strings.HasPrefix(key, "pplx-") {
		return "https://api.perplexity.ai"
	}
	if strings.HasPrefix(key, "sk-or-") {
		return "https://openrouter.ai/api/v1"
	}
	if v := strings.TrimSpace(getenv("PERPLEXITY_API_KEY")); v == key {
		return "https://api.perplexity.ai"
	}
	return "https://openrouter.ai/api/v1"
}

var perplexityRecency = sync.OnceValue(func() map[string]string {
	return map[string]string{"pd": "day", "pw": "week", "pm": "month", "py": "year",
		"day": "day", "week": "week", "month": "month", "year": "year"}
}) // built on first use, not in every process's init

type chatMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
}

func runPerplexity(sc *searchCall) (map[string]any, error) {
	model := sc.model
	if model == "" {
		model = "perplexity/sonar-pro"
	}
	if strings.Contains(sc.base, "api.perplexity.ai") {
		model = strings.TrimPrefix(model, "perplexity/")
	}
	body := map[string]any{"model": model, "messages": []chatMessage{{Role: "user", Content: sc.p.Query}}}
	if f := sc.p.Freshness; f != "" {
		r, ok := perplexityRecency()[f]
		if !ok {
			return nil, payloadError(tools.CodeInvalidParams, "invalid_freshness", "freshness must be day, week, month or year for Perplexity.")
		}
		body["search_recency_filter"] = r
	}
	h := bearer(sc.key)
	h.Set("HTTP-Referer", "https://openclaw.ai")
	h.Set("X-Title", "OpenClaw Web Search")
	var out struct {
		Choices []struct {
			Message struct {
				Content     string `json:"content"`
				Annotations []struct {
					Type        string `json:"type"`
					URLCitation struct {
						URL string `json:"url"`
					} `json:"url_citation"`
				} `json:"annotations"`
			} `json:"message"`
		} `json:"choices"`
		Citations []string `json:"citations"`
	}
	if err := sc.do(http.MethodPost, sc.base+"/chat/completions", h, body, &out); err != nil {
		return nil, err
	}
	content := ""
	var cites []string
	seen := map[string]bool{}
	for _, c := range out.Citations {
		cites = addUnique(cites, seen, c)
	}
	if len(out.Choices) > 0 {
		content = out.Choices[0].Message.Content
		if len(cites) == 0 {
			for _, a := range out.Choices[0].Message.Annotations {
				if a.Type == "url_citation" {
					cites = addUnique(cites, seen, a.URLCitation.URL)
				}
			}
		}
	}
	if content == "" {
		content = "No response"
	}
	return answer(model, content, cites), nil
}

func runGemini(sc *searchCall) (map[string]any, error) {
	model := sc.model
	if model == "" {
		model = "gemini-2.5-flash"
	}
	h := http.Header{}
	h.Set("x-goog-api-key", sc.key)
	body := map[string]any{
		"contents": []any{map[string]any{"parts": []any{map[string]any{"text": sc.p.Query}}}},
		"tools":    []any{map[string]any{"google_search": map[string]any{}}},
	}
	var out struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			GroundingMetadata struct {
				GroundingChunks []struct {
					Web struct {
						URI   string `json:"uri"`
						Title string `json:"title"`
					} `json:"web"`
				} `json:"groundingChunks"`
			} `json:"groundingMetadata"`
		} `json:"candidates"`
	}
	if err := sc.do(http.MethodPost, sc.base+"/models/"+model+":generateContent", h, body, &out); err != nil {
		return nil, err
	}
	var text strings.Builder
	var cites []string
	seen := map[string]bool{}
	if len(out.Candidates) > 0 {
		c := out.Candidates[0]
		for _, p := range c.Content.Parts {
			text.WriteString(p.Text)
		}
		for _, g := range c.GroundingMetadata.GroundingChunks {
			cites = addUnique(cites, seen, g.Web.URI)
		}
	}
	content := text.String()
	if content == "" {
		content = "No response"
	}
	return answer(model, content, cites), nil
}

func runGrok(sc *searchCall) (map[string]any, error) {
	model := sc.model
	if model == "" {
		model = "grok-4-1-fast"
	}
	body := map[string]any{"model": model, "input": []chatMessage{{Role: "user", Content: sc.p.Query}},
		"tools": []any{map[string]any{"type": "web_search"}}}
	type annotation struct {
		Type       string `json:"type"`
		URL        string `json:"url"`
		StartIndex int    `json:"start_index"`
		EndIndex   int    `json:"end_index"`
	}
	var out struct {
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Type        string       `json:"type"`
				Text        string       `json:"text"`
				Annotations []annotation `json:"annotations"`
			} `json:"content"`
		} `json:"output"`
		OutputText string   `json:"output_text"`
		Citations  []string `json:"citations"`
	}
	if err := sc.do(http.MethodPost, sc.base+"/responses", bearer(sc.key), body, &out); err != nil {
		return nil, err
	}
	content := ""
	var anns []annotation
	for _, o := range out.Output {
		if o.Type != "message" || content != "" {
			continue
		}
		for _, c := range o.Content {
			if c.Type == "output_text" {
				content, anns = c.Text, c.Annotations
				break
			}
		}
	}
	if content == "" {
		content = out.OutputText
	}
	if content == "" {
		content = "No response"
	}
	var cites []string
	seen := map[string]bool{}
	for _, c := range out.Citations {
		cites = addUnique(cites, seen, c)
	}
	if len(cites) == 0 {
		for _, a := range anns {
			if a.Type == "url_citation" {
				cites = addUnique(cites, seen, a.URL)
			}
		}
	}
	res := answer(model, content, cites)
	if inline, _ := sc.cfg["inlineCitations"].(bool); inline {
		var ic []map[string]any
		for _, a := range anns {
			if a.Type == "url_citation" {
				ic = append(ic, map[string]any{"start_index": a.StartIndex, "end_index": a.EndIndex, "url": a.URL})
			}
		}
		res["inlineCitations"] = ic
	}
	return res, nil
}

// runKimi drives Moonshot's builtin $web_search: while the model asks for
// the tool, echo its arguments back (up to 3 rounds), then take the text.
func runKimi(sc *searchCall) (map[string]any, error) {
	model := sc.model
	if model == "" {
		model = "moonshot-v1-128k"
	}
	msgs := []chatMessage{{Role: "user", Content: sc.p.Query}}
	tools_ := []any{map[string]any{"type": "builtin_function", "function": map[string]any{"name": "$web_search"}}}
	var cites []string
	seen := map[string]bool{}
	for round := 0; round < 4; round++ {
		body := map[string]any{"model": model, "messages": msgs, "tools": tools_}
		if strings.HasPrefix(model, "kimi-k2.5") || strings.HasPrefix(model, "kimi-k2.6") {
			body["thinking"] = map[string]any{"type": "disabled"}
		}
		var out struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					Content          string          `json:"content"`
					ReasoningContent string          `json:"reasoning_content"`
					ToolCalls        json.RawMessage `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
			SearchResults []struct {
				URL string `json:"url"`
			} `json:"search_results"`
		}
		if err := sc.do(http.MethodPost, sc.base+"/chat/completions", bearer(sc.key), body, &out); err != nil {
			return nil, err
		}
		for _, r := range out.SearchResults {
			cites = addUnique(cites, seen, r.URL)
		}
		if len(out.Choices) == 0 {
			break
		}
		ch := out.Choices[0]
		if ch.FinishReason != "tool_calls" || round == 3 {
			content := ch.Message.Content
			if content == "" {
				content = ch.Message.ReasoningContent
			}
			if content == "" {
				content = "No response"
			}
			return answer(model, content, cites), nil
		}
		var calls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		}
		_ = json.Unmarshal(ch.Message.ToolCalls, &calls)
		msgs = append(msgs, chatMessage{Role: "assistant", Content: ch.Message.Content, ToolCalls: ch.Message.ToolCalls})
		for _, c := range calls {
			for _, u := range urlsIn(c.Function.Arguments) {
				cites = addUnique(cites, seen, u)
			}
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: c.Function.Arguments})
		}
	}
	return answer(model, "No response", cites), nil
}

func urlsIn(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '"' || r == ' ' || r == ',' || r == '\\' }) {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			out = append(out, f)
		}
	}
	return out
}
