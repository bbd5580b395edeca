package web

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// renderFetch prints the page for a human: a header line, then the text
// without the envelope (the reader is the one who asked for the page).
func renderFetch(w io.Writer, r gjson.Result) error {
	d := r.Get("details")
	cached := ""
	if d.Get("cached").Bool() {
		cached = ", cached"
	}
	fmt.Fprintf(w, "%s  %d %s (%s, %d ms%s)\n", d.Get("finalUrl").String(), d.Get("status").Int(),
		d.Get("contentType").String(), d.Get("extractor").String(), d.Get("tookMs").Int(), cached)
	if t := unwrap(d.Get("title").String()); t != "" {
		fmt.Fprintf(w, "# %s\n", t)
	}
	fmt.Fprintln(w)
	_, err := fmt.Fprintln(w, unwrap(d.Get("text").String()))
	return err
}

// unwrap returns the content inside an untrusted-content envelope.
func unwrap(s string) string {
	i := strings.Index(s, beginMarker)
	j := strings.LastIndex(s, endMarker)
	if i < 0 || j < i {
		return s
	}
	inner := s[i:j]
	if k := strings.Index(inner, "\n---\n"); k >= 0 {
		inner = inner[k+5:]
	}
	return strings.TrimSuffix(inner, "\n")
}

// renderSearch prints results or the answer with its citations.
func renderSearch(w io.Writer, r gjson.Result) error {
	d := r.Get("details")
	cached := ""
	if d.Get("cached").Bool() {
		cached = ", cached"
	}
	fmt.Fprintf(w, "%s: %q (%d ms%s)\n\n", d.Get("provider").String(), d.Get("query").String(), d.Get("tookMs").Int(), cached)
	if d.Get("results").Exists() {
		for i, res := range d.Get("results").Array() {
			fmt.Fprintf(w, "%d. %s\n   %s\n", i+1, unwrap(res.Get("title").String()), res.Get("url").String())
			if s := unwrap(res.Get("description").String()); s != "" {
				fmt.Fprintf(w, "   %s\n", s)
			}
		}
		return nil
	}
	fmt.Fprintln(w, unwrap(d.Get("content").String()))
	if c := d.Get("citations").Array(); len(c) > 0 {
		fmt.Fprintln(w)
		for i, u := range c {
			fmt.Fprintf(w, "[%d] %s\n", i+1, u.String())
		}
	}
	return nil
}
