package web

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A body block with this many times the text readability chose replaces
// its choice: readability scores paragraphs by commas and class names, so
// a comma-rich author bio of 600 characters can outscore an article body
// of plain sentences three times as long.
const longerBodyFactor = 2.5

// longerBody is the block of doc with the most paragraph text of its own
// (text in its direct children, not in nested containers or links), when
// that is longerBodyFactor times the text of chosen and chosen does not
// contain it; else nil.
func longerBody(doc, chosen *html.Node) *html.Node {
	var best *html.Node
	bestLen := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || boilerplate(c) {
				continue
			}
			if container(c) {
				if l := ownText(c); l > bestLen {
					best, bestLen = c, l
				}
			}
			walk(c)
		}
	}
	walk(doc)
	if best == nil || float64(bestLen) < longerBodyFactor*float64(textLen(chosen, false)) || contains(chosen, best) {
		return nil
	}
	return best
}

// ownText is the non-link text of n's direct children that are not
// containers themselves, or 0 when links make up most of it (a menu).
func ownText(n *html.Node) int {
	own, links := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			own += utf8.RuneCountInString(strings.TrimSpace(c.Data))
		case c.Type == html.ElementNode && !container(c) && !boilerplate(c):
			own += textLen(c, false)
			links += textLen(c, true)
		}
	}
	if links*3 > own {
		return 0
	}
	return own - links
}

// textLen is the text under n (only within links when inLinks).
func textLen(n *html.Node, inLinks bool) int {
	total := 0
	var walk func(n *html.Node, link bool)
	walk = func(n *html.Node, link bool) {
		if n.Type == html.TextNode && (!inLinks || link) {
			total += utf8.RuneCountInString(strings.TrimSpace(n.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style) {
				continue
			}
			walk(c, link || c.DataAtom == atom.A)
		}
	}
	walk(n, n.DataAtom == atom.A)
	return total
}

func container(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Article, atom.Main, atom.Td, atom.Body:
		return true
	}
	return false
}

// boilerplate is what a body never is.
func boilerplate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Header, atom.Footer, atom.Form, atom.Script, atom.Style, atom.Noscript, atom.Head:
		return true
	}
	return false
}

func contains(outer, inner *html.Node) bool {
	for n := inner; n != nil; n = n.Parent {
		if n == outer {
			return true
		}
	}
	return false
}
