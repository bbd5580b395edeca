// Package pdf is the pdf tool: the text layer of local PDFs, by page
// range, within size and page caps. Analysis by a model (the original's
// main mode) needs the model providers, which this build does not have
// yet: the tool returns the extracted text and says so, and says when a
// PDF has no text layer at all (a scan), instead of failing.
package pdf

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
		Tool:    "pdf",
		Summary: "Extract the text of PDF documents (page ranges, size and page caps)",
		Description: "Reads the text layer of up to 10 local PDFs (default: the first 20 pages; " +
			"pages \"1-5\" or \"1,3,7-9\" to choose). Answering the prompt needs a model, which " +
			"this build does not call yet: the extracted text is returned instead. A scanned " +
			"PDF without a text layer is reported as such.",
		Examples: []string{
			"openclaw pdf report.pdf",
			"openclaw pdf report.pdf --pages 2-4",
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
	Attempts []any         `json:"attempts"`
	Prompt   string        `json:"prompt"`
	PDF      string        `json:"pdf,omitempty"`
	PDFs     []fileDetails `json:"pdfs"`
	Analysis string        `json:"analysis"`
	Error    string        `json:"error,omitempty"`
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
	d := details{Attempts: []any{}, Prompt: prompt, PDFs: []fileDetails{}}
	var parts []string
	for _, ref := range refs {
		path, err := localPath(env, ref)
		if err != nil {
			return nil, err
		}
		fd := fileDetails{PDF: ref}
		ex, err := open(ctx, path, ref, int64(maxMb*1024*1024), wanted, maxPages)
		if err != nil {
			return nil, err
		}
		fd.extraction = ex
		fd.TextLayer = ex.Text != ""
		d.PDFs = append(d.PDFs, fd)
		parts = append(parts, describe(ref, ex, len(refs) > 1, maxPages))
	}
	if len(refs) == 1 {
		d.PDF = refs[0]
	}
	d.Analysis = analysisNote(env, p.Model)
	d.Text = strings.Join(parts, "\n\n")
	text := d.Text + "\n\n[" + d.Analysis + "]"
	return tools.TextResult(text, d), nil
}

// open checks the size cap, then extracts.
func open(ctx context.Context, path, ref string, maxBytes int64, wanted []int, maxPages int) (*extraction, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, tools.Errorf(tools.CodeNotFound, "PDF not found: %s", ref)
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, tools.Errorf(tools.CodeInvalidParams, "%s is not a regular file", ref)
	}
	if fi.Size() > maxBytes {
		return nil, tools.Errorf(tools.CodeInvalidParams,
			"PDF too large: %s is %.1f MB, over the %.1f MB limit (maxBytesMb, agents.defaults.pdfMaxBytesMb)",
			ref, float64(fi.Size())/(1024*1024), float64(maxBytes)/(1024*1024))
	}
	ex, err := extract(ctx, path, fi.Size(), wanted, maxPages)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, tools.Errorf(tools.CodeFailed, "%s: %v", ref, err)
	}
	return ex, nil
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
			"Reading it needs a vision model (not supported by this build yet).", formatPages(ex.Pages))
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

// analysisNote says why the prompt was not answered.
func analysisNote(env *tools.Env, override string) string {
	m := override
	if m == "" {
		m = env.Config.String("agents.defaults.pdfModel", env.Config.String("agents.defaults.imageModel", ""))
	}
	if m == "" {
		return "Text extraction only: analysing the PDF with the prompt needs a model, and none is configured (agents.defaults.pdfModel)."
	}
	return "Text extraction only: model " + m + " is configured, but this build cannot call model providers yet."
}

// localPath resolves a PDF reference to a local file: a path (relative to
// the workspace), ~/..., or file://. URLs are refused for now: fetching
// needs the SSRF-guarded fetcher, which is not shared yet.
func localPath(env *tools.Env, ref string) (string, error) {
	lower := strings.ToLower(ref)
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		return "", tools.Errorf(tools.CodeInvalidParams,
			"not yet: PDF URLs are not supported by this build; download it and use a local file (%s)", ref)
	case strings.HasPrefix(lower, "file://"):
		u, err := url.Parse(ref)
		if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || u.Path == "" {
			return "", tools.Errorf(tools.CodeInvalidParams, "Invalid file URL: %s. Use file:///absolute/path or a plain path.", ref)
		}
		return filepath.FromSlash(u.Path), nil
	case strings.Contains(ref, "://") || strings.HasPrefix(lower, "data:"):
		return "", tools.Errorf(tools.CodeInvalidParams,
			"Unsupported PDF reference: %s. Use a file path or a file:// URL.", ref).
			WithDetails(map[string]any{"error": "unsupported_pdf_reference", "pdf": ref})
	}
	p := tools.ExpandHome(strings.TrimPrefix(ref, "@"))
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.WorkspaceDir(), p)
	}
	return filepath.Clean(p), nil
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
