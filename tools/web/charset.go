package web

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// prescanBytes is the WHATWG prescan's window; lateMetaBytes how far a
// <meta charset> is still looked for when the prescan finds none (pages
// with long <head> scripts declare it late).
const (
	prescanBytes  = 1024
	lateMetaBytes = 64 * 1024
)

// decodeBody turns a response body into UTF-8 as the WHATWG encoding rules
// say: a BOM, else the Content-Type charset, else a <meta> in the first
// 1,024 bytes. When nothing is declared there, bytes that are valid UTF-8
// are UTF-8 (a legacy text with non-ASCII bytes almost never is); else a
// <meta> further on is honoured; else windows-1252, the web's default.
// golang.org/x/net/html/charset alone guesses from the first 1,024 bytes
// only, so a page whose head is ASCII came out as windows-1252.
func decodeBody(body []byte, contentType string) ([]byte, string) {
	enc, name := declaredEncoding(body, contentType)
	if enc == nil {
		switch {
		case validUTF8(body):
			return body, "utf-8"
		default:
			if enc, name = metaEncoding(body[:min(len(body), lateMetaBytes)]); enc == nil {
				enc, name = charmap.Windows1252, "windows-1252"
			}
		}
	}
	if enc == encoding.Nop || name == "utf-8" {
		return bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF")), "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body, name
	}
	return out, name
}

// declaredEncoding is the BOM, the header's charset or the prescan's
// <meta>, in that order; nil when none.
func declaredEncoding(body []byte, contentType string) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")):
		return encoding.Nop, "utf-8"
	case bytes.HasPrefix(body, []byte("\xFE\xFF")):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "utf-16be"
	case bytes.HasPrefix(body, []byte("\xFF\xFE")):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "utf-16le"
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if enc, name := lookup(params["charset"]); enc != nil {
			return enc, name
		}
	}
	return metaEncoding(body[:min(len(body), prescanBytes)])
}

// metaEncoding finds <meta charset> or <meta http-equiv=Content-Type
// content="…charset=…"> in b (a prefix of the document).
func metaEncoding(b []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) == "body" {
				return nil, ""
			}
			if string(tag) != "meta" || !hasAttr {
				continue
			}
			var cs, content string
			httpEquiv := false
			for {
				k, v, more := z.TagAttr()
				switch strings.ToLower(string(k)) {
				case "charset":
					cs = string(v)
				case "http-equiv":
					httpEquiv = strings.EqualFold(string(v), "content-type")
				case "content":
					content = string(v)
				}
				if !more {
					break
				}
			}
			if cs == "" && httpEquiv {
				if _, params, err := mime.ParseMediaType(content); err == nil {
					cs = params["charset"]
				}
			}
			if enc, name := lookup(cs); enc != nil {
				// A document read as bytes cannot declare itself UTF-16.
				if strings.HasPrefix(name, "utf-16") {
					return encoding.Nop, "utf-8"
				}
				return enc, name
			}
		}
	}
}

func lookup(label string) (encoding.Encoding, string) {
	label = strings.TrimSpace(label)
	if label == "" {
		return nil, ""
	}
	enc, name := charset.Lookup(label)
	if enc == nil {
		return nil, ""
	}
	if name == "utf-8" {
		return encoding.Nop, name
	}
	return enc, name
}

// validUTF8 is utf8.Valid, forgiving a rune cut at the end (a truncated
// body).
func validUTF8(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for k := 1; k <= 3 && k < len(b); k++ {
		if tail := b[len(b)-k]; tail >= 0xC0 { // the start of the cut rune
			return utf8.Valid(b[:len(b)-k])
		}
	}
	return false
}
