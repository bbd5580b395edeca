package web

import (
	"net/url"
	"strings"
	"testing"
)

var articleURL, _ = url.Parse("http://example.com/a")

func extractText(t *testing.T, page string) string {
	t.Helper()
	ex, err := extract([]byte(page), "text/html", articleURL, "text")
	if err != nil {
		t.Fatal(err)
	}
	return ex.Text
}

// paragraphs is n paragraphs of plain article prose.
func paragraphs(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("<p>The council voted on Tuesday to expand the harbour district and the new plan adds housing for two thousand families near the old docks, paragraph ")
		b.WriteString(string(rune('a' + i)))
		b.WriteString(".</p>\n")
	}
	return b.String()
}

// background-color: transparent is visible text; color: transparent (and
// the other hiding styles) is not.
func TestTransparentBackgroundIsVisible(t *testing.T) {
	page := `<!doctype html><html><head><title>T</title></head><body><article><h1>Harbour</h1>` + paragraphs(4) +
		`<p style="background-color: transparent; padding: 0">Visible on a transparent background.</p>` +
		`<p style="border-color:transparent">Visible with a transparent border.</p>` +
		`<p style="margin:0;color: transparent">Injected hidden instruction.</p>` +
		`<p style="display:none !important">Hidden by display.</p>` + paragraphs(3) + `</article></body></html>`
	got := extractText(t, page)
	for _, want := range []string{"Visible on a transparent background.", "Visible with a transparent border."} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q", want)
		}
	}
	for _, bad := range []string{"Injected hidden instruction", "Hidden by display"} {
		if strings.Contains(got, bad) {
			t.Errorf("keeps hidden %q", bad)
		}
	}
}

// Image markup that reaches the text as characters (escaped in the page,
// in a <noscript> or an attribute-like caption) is not text; markup shown
// as code is.
func TestImageMarkupIsNotText(t *testing.T) {
	page := `<!doctype html><html><head><title>T</title></head><body><article><h1>Harbour</h1>` + paragraphs(4) +
		`<figure><img src="/a.jpg" alt=""><noscript>&lt;img src="/a.jpg" alt="harbour"&gt;</noscript>` +
		`<figcaption>The docks &lt;img class="lazy" data-src="/b.jpg" /&gt; at dawn.</figcaption></figure>` +
		`<p>Use <code>&lt;img src="x.png"&gt;</code> in your page.</p><h2>A single &lt;img&gt; element</h2>` + paragraphs(3) + `</article></body></html>`
	got := extractText(t, page)
	if strings.Contains(got, `<img class`) || strings.Contains(got, `data-src`) {
		t.Errorf("image markup kept as text:\n%s", got)
	}
	for _, want := range []string{"The docks", "at dawn.", `<img src="x.png">`, "A single <img> element"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// A comma-rich author bio (which readability scores above plain prose)
// is not chosen over an article body three times as long.
func TestLongBodyBeatsAuthorBio(t *testing.T) {
	var body strings.Builder
	for i := range 12 {
		body.WriteString("The council voted on Tuesday to expand the harbour district and the new plan adds housing for two thousand families near the old docks and point ")
		body.WriteString(string(rune('a' + i)))
		body.WriteString(" follows.<br><br>\n")
	}
	bio := `<div class="author-bio"><p>Jane Doe is a reporter, editor, and photographer, who has covered city hall, schools, courts, and politics, for twenty years, in three cities, for four newspapers.</p>` +
		`<p>She lives, with her family, in the harbour district, and writes, on weekends, about food, gardens, and boats.</p>` +
		`<p>Before that, she worked, briefly, as a teacher, a translator, a baker, and a tour guide, in Lisbon, Porto, and Madrid, and she still, now and then, bakes bread, for friends, neighbours, and colleagues.</p>` +
		`<p>Her books, essays, and columns, on housing, transport, and harbours, have won prizes, awards, and, once, a small grant, from the city, the state, and a foundation.</p></div>`
	page := `<!doctype html><html><head><title>Harbour plan</title></head><body><div class="wrap"><div class="a"><div class="b"><div class="c1">` +
		body.String() + `</div></div></div>` + bio + `</div></body></html>`
	got := extractText(t, page)
	if n := strings.Count(got, "The council voted"); n != 12 {
		t.Errorf("article body: %d of 12 paragraphs:\n%.300s", n, got)
	}
	// A page where readability's choice is right is left alone.
	right := `<!doctype html><html><head><title>T</title></head><body><nav>` + strings.Repeat(`<a href="/x">Section link</a> `, 40) +
		`</nav><article><h1>Harbour</h1>` + paragraphs(8) + `</article><div class="author-bio"><p>Jane Doe reports on the city.</p></div></body></html>`
	if got := extractText(t, right); strings.Count(got, "The council voted") != 8 || strings.Contains(got, "Section link") {
		t.Errorf("readability's right choice changed:\n%.300s", got)
	}
}
