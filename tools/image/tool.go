// Package image is the image tool: it sends one local image and a prompt to
// the configured image model (agents.defaults.imageModel, or a configured
// model that declares image input) through agent/providers and returns the
// model's answer. Without an image model it says what to configure.
package image

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/image.json
var imageSchema string

// Defaults of the original.
const (
	defaultPrompt     = "Describe the image."
	defaultMaxBytesMb = 10
	maxAnswerTokens   = 512
)

func init() {
	tools.Register(&tools.Action{
		Tool:      "image",
		ReadOnly:  true,
		OpenWorld: true,
		Summary:   "Ask the configured image model about an image",
		Description: "Sends an image (a path, file://, data: or http(s) URL) and a prompt to the image model (agents.defaults.imageModel, " +
			"or a configured model whose catalog entry declares image input) and returns its answer. " +
			"Needs models.providers.<id> and an image model. URLs are fetched through web_fetch's " +
			"SSRF guard (tools.web.fetch.ssrfPolicy).",
		Examples: []string{
			"openclaw image photo.png",
			"openclaw image photo.png --prompt 'What text is in this screenshot?'",
			"openclaw image photo.jpg --model openai/gpt-4o-mini --json",
		},
		Schema: imageSchema,
		Args:   []string{"image"}, PathParams: []string{"image"},
		Scope: "operator.write",
		Where: tools.Local,
		Run:   tools.Typed(run),
		Render: func(w io.Writer, r gjson.Result) error {
			_, err := fmt.Fprintf(w, "%s\n(%s)\n", strings.TrimRight(r.Get("content.0.text").String(), "\n"), r.Get("details.model").String())
			return err
		},
	})
}

type params struct {
	Image      string   `json:"image"`
	Prompt     string   `json:"prompt"`
	Model      string   `json:"model"`
	MaxBytesMb *float64 `json:"maxBytesMb"`
}

// attempt records one model tried.
type attempt struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Error    string `json:"error"`
}

type details struct {
	Model    string          `json:"model"`
	Image    string          `json:"image"`
	MimeType string          `json:"mimeType"`
	Attempts []attempt       `json:"attempts"`
	Usage    providers.Usage `json:"usage"`
}

func run(ctx context.Context, env *tools.Env, p params) (any, error) {
	ref := strings.TrimSpace(p.Image)
	if ref == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "image required: provide a path or URL to an image")
	}
	models := providers.ImageModels(env.Config)
	if m := strings.TrimSpace(p.Model); m != "" {
		models = []string{m}
	}
	maxMb := float64(env.Config.Int("agents.defaults.mediaMaxMb", defaultMaxBytesMb))
	if p.MaxBytesMb != nil {
		maxMb = *p.MaxBytesMb
	}
	if len(models) == 0 {
		// A missing or unreadable local file is the first thing to fix: say
		// so rather than only that no model is set (URLs are not fetched for
		// nothing).
		if l := strings.ToLower(ref); !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
			if _, _, err := load(ctx, env, ref, int64(maxMb*1024*1024)); err != nil {
				return nil, err
			}
		}
		return nil, tools.Errorf(tools.CodeFailed,
			"image: no image model is configured: set agents.defaults.imageModel to provider/model "+
				"(a vision model of a provider under models.providers.<id> {baseUrl, apiKey, api})")
	}
	data, mime, err := load(ctx, env, ref, int64(maxMb*1024*1024))
	if err != nil {
		return nil, err
	}
	prompt := p.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = defaultPrompt
	}
	d := details{Image: ref, MimeType: mime, Attempts: []attempt{}}
	var errs []string
	var last error
	for _, m := range models {
		text, usage, err := ask(ctx, env, m, prompt, mime, data)
		if err == nil {
			d.Model, d.Usage = m, usage
			return tools.TextResult(text, d), nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		prov, model, _ := strings.Cut(m, "/")
		d.Attempts = append(d.Attempts, attempt{Provider: prov, Model: model, Error: err.Error()})
		errs = append(errs, m+": "+err.Error())
		last = err
	}
	if len(errs) == 1 { // one model: its own error and exit code (auth 4, unreachable 5, ...)
		if fe := tools.AsError(last); fe != nil {
			return nil, fe.WithDetails(d)
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s", errs[0]).WithDetails(d)
	}
	return nil, tools.Errorf(tools.CodeFailed, "All image models failed (%d): %s", len(errs), strings.Join(errs, " | ")).WithDetails(d)
}

// ask sends one user message [prompt, image] to model ref.
func ask(ctx context.Context, env *tools.Env, ref, prompt, mime string, data []byte) (string, providers.Usage, error) {
	prov, s, r, err := providers.Resolve(env.Config, ref)
	if err != nil {
		return "", providers.Usage{}, err
	}
	if len(s.Models) > 0 {
		info, ok := s.Model(r.Model)
		if !ok {
			return "", providers.Usage{}, tools.Errorf(tools.CodeInvalidParams, "Unknown model: %s", r)
		}
		if !info.SupportsImages() {
			return "", providers.Usage{}, tools.Errorf(tools.CodeInvalidParams,
				"Model does not support images: %s (its models.providers.%s.models entry has no \"image\" in input)", r, r.Provider)
		}
	}
	resp, err := prov.Chat(ctx, providers.Request{
		Model:     r.Model,
		Messages:  []providers.Message{{Role: "user", Parts: []providers.Part{providers.TextPart(prompt), providers.ImagePart(mime, data)}}},
		MaxTokens: maxAnswerTokens,
	})
	if err != nil {
		return "", providers.Usage{}, err
	}
	if strings.TrimSpace(resp.Text) == "" {
		return "", resp.Usage, fmt.Errorf("model %s returned no text", r)
	}
	return resp.Text, resp.Usage, nil
}
