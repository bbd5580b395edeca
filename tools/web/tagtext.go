package web

import (
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// imgMarkup is image markup that reached the text as characters: escaped
// inside a <noscript> or an attribute and decoded once by the parser, it
// reads "<img src=…>" in the page's text though no reader sees it.
var imgMarkup = sync.OnceValue(func() *regexp.Regexp {
	// With attributes only: "the <img> element" is prose about markup.
	return regexp.MustCompile(`(?i)<\s*(?:img|source)\s[^<>]*=[^<>]*>`)
}) // built on first use, not in every process's init

// dropTagText removes image markup from the text nodes under n, except in
// code (where markup is the content).
func dropTagText(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			if strings.Contains(c.Data, "<") {
				c.Data = imgMarkup().ReplaceAllString(c.Data, "")
			}
		case c.Type == html.ElementNode && (c.DataAtom == atom.Pre || c.DataAtom == atom.Code || c.DataAtom == atom.Kbd || c.DataAtom == atom.Samp):
		default:
			dropTagText(c)
		}
	}
}
