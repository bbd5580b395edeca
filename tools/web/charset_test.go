package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// article is a page whose <head> is longer than the prescan's 1,024 bytes
// (as real heads with scripts and styles are), with meta placed after it
// when late is set.
func article(meta, text string, late bool) string {
	filler := "<script>var analytics = {" + strings.Repeat(`"k": 1, `, 200) + "};</script>\n"
	head := "<!doctype html><html><head>"
	if late {
		head += filler + meta
	} else {
		head += meta + filler
	}
	body := "<article><h1>Heading</h1>"
	for range 6 {
		body += "<p>" + text + " " + text + " " + text + "</p>"
	}
	return head + "<title>T</title></head><body>" + body + "</article></body></html>"
}

// Pages served without a charset (python3 -m http.server) decode as the
// WHATWG rules say, UTF-8 first when nothing is declared, and a late
// <meta charset> is still honoured for bytes that are not UTF-8.
func TestCharsetOfUndeclaredPages(t *testing.T) {
	dir := t.TempDir()
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("图为马拉松比赛的起点，北京天气晴朗。")
	sjis, _ := japanese.ShiftJIS.NewEncoder().String("日本語のテキストです。")
	pages := map[string]struct{ body, want string }{
		"zh-utf8.html":        {article("", "图为马拉松比赛的起点，北京天气晴朗。", false), "图为马拉松比赛的起点，北京天气晴朗。"},
		"en-utf8.html":        {article("", "If you’re reading this — it’s “fine”.", false), "If you’re reading this — it’s “fine”."},
		"late-1252.html":      {article(`<meta charset="windows-1252">`, "Caf\xe9 cr\xe8me, na\xefve \x93quotes\x94.", true), "Café crème, naïve “quotes”."},
		"late-sjis.html":      {article(`<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">`, sjis, true), "日本語のテキストです。"},
		"early-gbk.html":      {article(`<meta charset="gbk">`, gbk, false), "图为马拉松比赛的起点，北京天气晴朗。"},
		"bom-utf8.html":       {"\xEF\xBB\xBF" + article(`<meta charset="windows-1252">`, "Zürich – Ångström", false), "Zürich – Ångström"},
		"undeclared.html":     {article("", "Caf\xe9 cr\xe8me br\xfbl\xe9e.", false), "Café crème brûlée."},
		"late-utf8-1252.html": {article(`<meta charset="iso-8859-1">`, "Zürich – Ångström", true), "Zürich – Ångström"},
	}
	for name, p := range pages {
		os.WriteFile(filepath.Join(dir, name), []byte(p.body), 0o644)
	}
	srv := pythonServer(t, dir)
	env := envWith(t, allowLoopback())
	for name, p := range pages {
		d, err := fetch(context.Background(), t, env, map[string]any{"url": srv.URL + "/" + name, "extractMode": "text"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := d.Get("text").String(); !strings.Contains(got, p.want) {
			t.Errorf("%s: text lacks %q:\n%.300s", name, p.want, got)
		}
	}
}

// The header's charset outranks a <meta>, and a BOM outranks both.
func TestCharsetPrecedence(t *testing.T) {
	latin := []byte(article(`<meta charset="utf-8">`, "Caf\xe9", false))
	if got, name := decodeBody(latin, "text/html; charset=ISO-8859-1"); name != "windows-1252" || !strings.Contains(string(got), "Café") {
		t.Errorf("header: %s %q", name, got[len(got)-80:])
	}
	bom := append([]byte("\xEF\xBB\xBF"), []byte(article("", "Café", false))...)
	if got, name := decodeBody(bom, "text/html; charset=ISO-8859-1"); name != "utf-8" || !strings.Contains(string(got), "Café") || got[0] != '<' {
		t.Errorf("bom: %s %q", name, got[:10])
	}
	// A body cut inside a rune is still UTF-8.
	cut := []byte(article("", "图为马拉松", false))
	cut = append(cut, "图"[:2]...)
	if _, name := decodeBody(cut, "text/html"); name != "utf-8" {
		t.Errorf("cut rune: %s", name)
	}
}
