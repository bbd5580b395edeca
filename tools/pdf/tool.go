// Package pdf is the pdf tool: the text layer of PDFs (local files or
// URLs fetched through web_fetch's SSRF guard), by page range, within size
// and page caps, and the prompt answered by the configured model through
// agent/providers. Without a model it returns the extracted text and says
// that analysis needs one (not an error), and says when a PDF has no text
// layer at all (a scan).
package pdf

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

//go:embed schema/pdf.json
var pdfSchema string

// Defaults of the original.
const (
	defaultPrompt     = "Analyze this PDF document."
	defaultMaxBytesMb = 10
	defaultMaxPages   = 20
	maxPDFs           = 10
)

func init() {
	tools.Register(&tools.Action{
		Tool:      "pdf",
		ReadOnly:  true,
		OpenWorld: true,
		Summary:   "Analyze PDF documents with a model, or extract their text",
		Description: "Reads up to 10 PDFs (paths or http(s) URLs; default: the first 20 pages; " +
			"pages \"1-5\" or \"1,3,7-9\" to choose) and answers the prompt with " +
			"agents.defaults.pdfModel (else imageModel): Anthropic models get the file itself, " +
			"others its extracted text. Without a model the extracted text is returned. A scanned " +
			"PDF without a text layer is reported as such.",
		Examples: []string{
			"openclaw pdf report.pdf",
			"openclaw pdf report.pdf --pages 2-4",
			"openclaw pdf https://example.com/paper.pdf --prompt 'List the authors.'",
			"openclaw pdf --pdfs a.pdf --pdfs b.pdf --json",
		},
		Schema: pdfSchema,
		Args:   []string{"pdf"}, PathParams: []string{"pdf"},
		Scope: "operator.write",
		Where: tools.Local,
		Run:   tools.Typed(run),
	})
}

type params struct {
	PDF        string   `json:"pdf"`
	PDFs       []string `json:"pdfs"`
	Prompt     string   `json:"prompt"`
	Pages      string   `json:"pages"`
	Model      string   `json:"model"`
	MaxBytesMb *float64 `json:"maxBytesMb"`
}

// fileDetails describes one PDF in the result.
type fileDetails struct {
	PDF string `json:"pdf"`
	*extraction
	TextLayer bool   `json:"textLayer"`
	Error     string `json:"error,omitempty"`
}

type details struct {
	Text     string        `json:"text"`
	Model    *string       `json:"model"`
	Native   bool          `json:"native"`
	Attempts []attempt     `json:"attempts"`
	Prompt   string        `json:"prompt"`
	PDF      string        `json:"pdf,omitempty"`
	PDFs     []fileDetails `json:"pdfs"`
	Analysis string        `json:"analysis,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// attempt records one model that failed.
type attempt struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Error    string `json:"error"`
}

func run(ctx context.Context, env *tools.Env, p params) (any, error) {
	refs := dedupe(append([]string{p.PDF}, p.PDFs...))
	if len(refs) == 0 {
		return nil, tools.Errorf(tools.CodeInvalidParams, "pdf required: provide a path or URL to a PDF document")
	}
	if len(refs) > maxPDFs {
		d := map[string]any{"error": "too_many_pdfs", "count": len(refs), "max": maxPDFs}
		return tools.TextResult(fmt.Sprintf("Too many PDFs: %d given, at most %d.", len(refs), maxPDFs), d), nil
	}
	maxMb := float64(env.Config.Int("agents.defaults.pdfMaxBytesMb",
		env.Config.Int("agents.defaults.pdfMaxMb", defaultMaxBytesMb)))
	if p.MaxBytesMb != nil {
		maxMb = *p.MaxBytesMb
	}
	maxPages := max(1, env.Config.Int("agents.defaults.pdfMaxPages", defaultMaxPages))
	lim := loadLimits(env.Config)
	var wanted []int
	if strings.TrimSpace(p.Pages) != "" {
		var err error
		if wanted, err = parsePages(p.Pages); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "%v", err)
		}
	}
	prompt := p.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = defaultPrompt
	}
	d := details{Attempts: []attempt{}, Prompt: prompt, PDFs: []fileDetails{}}
	var parts []string
	var docs []doc
	for _, ref := range refs {
		src, err := openSource(ctx, env, ref, int64(maxMb*1024*1024))
		if err != nil {
			return nil, err
		}
		defer src.Close()
		ex, err := extract(ctx, src.r, src.size, wanted, maxPages, lim)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			var pc *pageCapError
			if errors.As(err, &pc) {
				return nil, pc.cap.toolError(ref, pc.page)
			}
			return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
		}
		d.PDFs = append(d.PDFs, fileDetails{PDF: ref, extraction: ex, TextLayer: ex.Text != ""})
		parts = append(parts, describe(ref, ex, len(refs) > 1, maxPages))
		docs = append(docs, doc{ref: ref, text: ex.Text, raw: src.bytes})
	}
	if len(refs) == 1 {
		d.PDF = refs[0]
	}
	extracted := strings.Join(parts, "\n\n")
	models := pdfModels(env.Config, p.Model)
	hasText := false
	for _, dc := range docs {
		hasText = hasText || dc.text != ""
	}
	if len(models) == 0 {
		d.Analysis = "Text extraction only: answering the prompt needs a model; set agents.defaults.pdfModel " +
			"(or imageModel) to provider/model of a provider under models.providers.<id>."
		if strings.TrimSpace(p.Prompt) == "" {
			// No prompt was asked: the text is the whole answer, and a
			// model is only what a question (or a summary) would need.
			d.Analysis = "Text extraction only (no prompt given): to ask about the PDF, give a prompt and " +
				"set agents.defaults.pdfModel (or imageModel) to provider/model of a provider under models.providers.<id>."
		}
		d.Text = extracted
		return tools.TextResult(extracted+"\n\n["+d.Analysis+"]", d), nil
	}
	var errs []string
	var last error
	for _, m := range models {
		answer, native, err := askModel(ctx, env.Config, m, prompt, docs, wanted != nil)
		if err == nil && !native && !hasText {
			err = fmt.Errorf("no text layer to send and the model reads no PDF files")
		}
		if err == nil {
			model := m
			d.Model, d.Native, d.Text = &model, native, answer
			return tools.TextResult(answer, d), nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		prov, model, _ := strings.Cut(m, "/")
		d.Attempts = append(d.Attempts, attempt{Provider: prov, Model: model, Error: err.Error()})
		errs = append(errs, m+": "+err.Error())
		last = err
	}
	if len(errs) == 1 { // one model: its own error and exit code (auth 4, ...)
		return nil, tools.AsError(last).WithDetails(d)
	}
	return nil, tools.Errorf(tools.CodeFailed, "All PDF models failed (%d): %s", len(errs), strings.Join(errs, " | ")).WithDetails(d)
}

// describe is one PDF's part of the text: its text, or why there is none,
// and what was left out.
func describe(ref string, ex *extraction, many bool, maxPages int) string {
	var b strings.Builder
	if many {
		fmt.Fprintf(&b, "=== %s ===\n", ref)
	}
	switch {
	case len(ex.Pages) == 0:
		fmt.Fprintf(&b, "No pages extracted: the PDF has %d page(s)", ex.PageCount)
		if len(ex.Missing) > 0 {
			fmt.Fprintf(&b, " (asked for %s)", formatPages(ex.Missing))
		}
		b.WriteString(".")
	case ex.Text == "":
		fmt.Fprintf(&b, "No text layer found on page(s) %s: this looks like a scanned or image-only PDF. "+
			"Reading it needs a vision model.", formatPages(ex.Pages))
	default:
		b.WriteString(ex.Text)
		if len(ex.Empty) > 0 {
			fmt.Fprintf(&b, "\n\n(Page(s) %s have no text layer: scanned or image-only.)", formatPages(ex.Empty))
		}
	}
	if len(ex.Skipped) > 0 {
		fmt.Fprintf(&b, "\n\n(Only %d pages are read per call (agents.defaults.pdfMaxPages); not extracted: %s. Ask for them with pages.)",
			maxPages, formatPages(ex.Skipped))
	}
	if len(ex.Missing) > 0 && len(ex.Pages) > 0 {
		fmt.Fprintf(&b, "\n\n(Page(s) %s are past the end of the document, which has %d.)", formatPages(ex.Missing), ex.PageCount)
	}
	return b.String()
}

// dedupe drops blanks and repeats, keeping the first order.
func dedupe(refs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		r = strings.TrimSpace(r)
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
