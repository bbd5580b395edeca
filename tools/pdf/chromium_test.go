package pdf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Chromium prints text in fonts whose codes are glyph ids, with the text
// in each font's /ToUnicode map (Type0 Identity-H for TrueType, Type3 with
// a /Differences of glyph names for CFF such as Noto CJK). testdata/
// chromium.pdf is chromium --headless --print-to-pdf of chromium.html,
// browser-pdf.pdf openclaw browser pdf of it (testdata/
// make-chromium-pdfs.sh); they are committed so that the test needs
// neither Chromium nor CJK fonts.
func TestChromiumPDFTextIsUnicode(t *testing.T) {
	for _, name := range []string{"chromium.pdf", "browser-pdf.pdf"} {
		t.Run(name, func(t *testing.T) { chromiumText(t, name) })
	}
}

func chromiumText(t *testing.T, name string) {
	env, dir := newEnv(t)
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "page.pdf"), b, 0o644)
	r, err := invoke(t, env, map[string]any{"pdf": "page.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Get("details.text").String()
	want := strings.Join([]string{
		"Quarterly report",
		"Revenue grew by twelve percent in the third quarter.",
		"Café déjà vu: naïve façade, Ångström, Zürich, São Paulo, Œuvre, Łódź.",
		"图为马拉松比赛的起点，北京天气晴朗。",
		"日本語のテキストも含まれています。",
	}, "\n")
	if got != want {
		t.Fatalf("text:\n%+q\nwant:\n%+q", got, want)
	}
}
