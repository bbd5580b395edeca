package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Readability is skipped on documents bigger or deeper than this (the
// original's limits): the DOM walk would cost more than it gives.
const (
	maxReadabilityChars = 1_000_000
	maxReadabilityDepth = 3000
)

// errNoContent is extraction finding no text: the cue for Firecrawl.
var errNoContent = errors.New("Web fetch extraction failed: Readability and Firecrawl returned no content.")

// extracted is the text of one response and how it was obtained.
type extracted struct {
	Text, Title, Extractor string
}

// extract turns a response body into text by content type: HTML through
// readability (then Markdown or plain text), JSON pretty-printed, Markdown
// and anything else as is.
func extract(body []byte, contentType string, page *url.URL, mode string) (extracted, error) {
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "text/markdown"):
		t := string(body)
		if mode == "text" {
			t = markdownToText(t)
		}
		return extracted{Text: t, Extractor: "cf-markdown"}, nil
	case isHTML(body, contentType):
		return extractHTML(body, page, mode)
	case strings.Contains(ct, "json"):
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			return extracted{Text: string(body), Extractor: "raw"}, nil
		}
		return extracted{Text: buf.String(), Extractor: "json"}, nil
	}
	return extracted{Text: string(body), Extractor: "raw"}, nil
}

// isHTML reports an HTML response (by type, or by its start when untyped).
func isHTML(body []byte, contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "html") || (ct == "" && looksHTML(body))
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

func extractHTML(body []byte, page *url.URL, mode string) (extracted, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return extracted{}, fmt.Errorf("Web fetch extraction failed: %w", err)
	}
	sanitize(doc)
	if len(body) > maxReadabilityChars || depth(doc, 0) > maxReadabilityDepth {
		return plainDocument(doc, page, mode)
	}
	art, err := readability.FromDocument(doc, page)
	if err != nil || art.Node == nil {
		return plainDocument(doc, page, mode)
	}
	out := extracted{Title: strings.TrimSpace(art.Title()), Extractor: "readability"}
	node := art.Node
	if alt := longerBody(doc, node); alt != nil {
		node = alt
	}
	out.Text, err = render(node, page, mode)
	if err != nil {
		return extracted{}, err
	}
	if strings.TrimSpace(out.Text) == "" {
		return extracted{}, errNoContent
	}
	return out, nil
}

// plainDocument renders the whole (sanitized) body when readability is
// skipped or finds nothing.
func plainDocument(doc *html.Node, page *url.URL, mode string) (extracted, error) {
	t, err := render(doc, page, mode)
	if err != nil {
		return extracted{}, err
	}
	if strings.TrimSpace(t) == "" {
		return extracted{}, errNoContent
	}
	return extracted{Text: t, Title: docTitle(doc), Extractor: "readability"}, nil
}

func render(n *html.Node, page *url.URL, mode string) (string, error) {
	dropTagText(n)
	if mode == "text" {
		var b strings.Builder
		art := readability.Article{Node: n}
		if err := art.RenderText(&b); err != nil {
			return "", err
		}
		return normalizeText(stripInvisible(b.String())), nil
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	var opts []converter.ConvertOptionFunc
	if page != nil {
		opts = append(opts, converter.WithDomain(page.Scheme+"://"+page.Host))
	}
	md, err := conv.ConvertNode(n, opts...)
	if err != nil {
		return "", fmt.Errorf("Web fetch extraction failed: markdown: %w", err)
	}
	return stripInvisible(strings.TrimSpace(string(md))), nil
}

var blankRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`) }) // built on first use, not in every process's init
var spaceRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[ \t\x{a0}]+`) })        // built on first use, not in every process's init

func normalizeText(s string) string {
	s = spaceRuns().ReplaceAllString(s, " ")
	s = blankRuns().ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// stripInvisible drops zero-width and bidi control characters, a common
// way to hide instructions in text.
func stripInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
			return -1
		}
		return r
	}, s)
}

var mdMarks = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?m)^#{1,6} |^[-*+] |\\*\\*|__|`+|!?\\[([^\\]]*)\\]\\([^)]*\\)")
}) // built on first use, not in every process's init

func markdownToText(s string) string {
	return mdMarks().ReplaceAllStringFunc(s, func(m string) string {
		if sub := mdMarks().FindStringSubmatch(m); len(sub) > 1 && sub[1] != "" {
			return sub[1]
		}
		return ""
	})
}

func docTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.TrimSpace(b.String())
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := docTitle(c); t != "" {
			return t
		}
	}
	return ""
}

func depth(n *html.Node, d int) int {
	best := d
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if best > maxReadabilityDepth {
			return best
		}
		best = max(best, depth(c, d+1))
	}
	return best
}

// hiddenClasses and hiddenStyle mark content a reader never sees (and an
// injected prompt likes to hide in); sanitize removes it before extraction.
var hiddenClasses = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"sr-only": true, "visually-hidden": true, "d-none": true, "hidden": true,
		"invisible": true, "screen-reader-only": true, "offscreen": true}
}) // built on first use, not in every process's init
var hiddenStyle = sync.OnceValue(func() *regexp.Regexp {
	// Each property starts the declaration (start, ';' or space before it):
	// "background-color: transparent" is not "color: transparent".
	return regexp.MustCompile(`(?i)(?:^|[;\s])(?:display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(\.0+)?\s*(;|!|$)|font-size\s*:\s*0(px|em|rem|%)?\s*(;|!|$)|text-indent\s*:\s*-\d{4,}|color\s*:\s*transparent)`)
}) // built on first use, not in every process's init

func sanitize(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && hidden(c) {
			n.RemoveChild(c)
		} else {
			sanitize(c)
		}
		c = next
	}
}

func hidden(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Meta, atom.Template, atom.Svg, atom.Canvas, atom.Iframe, atom.Object, atom.Embed:
		// <meta> in <head> carries the metadata readability reads.
		return n.DataAtom != atom.Meta || !inHead(n)
	}
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "type":
			if n.DataAtom == atom.Input && strings.EqualFold(a.Val, "hidden") {
				return true
			}
		case "class":
			for _, c := range strings.Fields(a.Val) {
				if hiddenClasses()[strings.ToLower(c)] {
					return true
				}
			}
		case "style":
			if hiddenStyle().MatchString(a.Val) {
				return true
			}
		}
	}
	return false
}

func inHead(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Head {
			return true
		}
	}
	return false
}
