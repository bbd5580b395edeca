package pdf

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// maxAnswerTokens bounds the model's answer.
const maxAnswerTokens = 4096

// pdfModels lists the models to try, as the spec resolves them: the
// model parameter; else agents.defaults.pdfModel; else imageModel; else
// the default model when its provider reads PDFs natively (Anthropic
// Messages). Empty: extraction only.
func pdfModels(cfg *config.Config, override string) []string {
	if m := strings.TrimSpace(override); m != "" {
		return []string{m}
	}
	if r := providers.ModelRefs(cfg, "agents.defaults.pdfModel"); len(r) > 0 {
		return r
	}
	if r := providers.ModelRefs(cfg, "agents.defaults.imageModel"); len(r) > 0 {
		return r
	}
	if d := providers.DefaultModel(cfg); d != "" {
		if r, err := providers.ParseRef(d); err == nil {
			if s, err := providers.Lookup(cfg, r.Provider); err == nil && s.API == providers.APIAnthropicMessages {
				return []string{d}
			}
		}
	}
	return nil
}

// doc is one PDF as the model sees it.
type doc struct {
	ref  string
	text string // extracted text (extraction mode)
	raw  func() ([]byte, error)
}

// askModel sends the PDFs and the prompt to model ref. Providers that
// read PDFs (Anthropic Messages) get each file whole as a document block,
// unless pages were chosen (the file cannot be cut, so those get the
// chosen pages' text instead); the others get the extracted text.
func askModel(ctx context.Context, cfg *config.Config, ref, prompt string, docs []doc, pagesChosen bool) (string, bool, error) {
	prov, s, r, err := providers.Resolve(cfg, ref)
	if err != nil {
		return "", false, err
	}
	if len(s.Models) > 0 {
		if _, ok := s.Model(r.Model); !ok {
			return "", false, tools.Errorf(tools.CodeInvalidParams, "Unknown model: %s", r)
		}
	}
	native := s.API == providers.APIAnthropicMessages && !pagesChosen
	var parts []providers.Part
	if native {
		for _, d := range docs {
			b, err := d.raw()
			if err != nil {
				return "", false, fmt.Errorf("%s: %w", d.ref, err)
			}
			parts = append(parts, providers.DocumentPart("application/pdf", path.Base(d.ref), b))
		}
		parts = append(parts, providers.TextPart(prompt))
	} else {
		var b strings.Builder
		for _, d := range docs {
			fmt.Fprintf(&b, "<document source=%q>\n%s\n</document>\n\n", d.ref, d.text)
		}
		b.WriteString(prompt)
		parts = append(parts, providers.TextPart(b.String()))
	}
	resp, err := prov.Chat(ctx, providers.Request{
		Model:     r.Model,
		Messages:  []providers.Message{{Role: "user", Parts: parts}},
		MaxTokens: maxAnswerTokens,
	})
	if err != nil {
		return "", native, err
	}
	if strings.TrimSpace(resp.Text) == "" {
		return "", native, fmt.Errorf("model %s returned no text", r)
	}
	return resp.Text, native, nil
}
