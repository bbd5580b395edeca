package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"

	"github.com/openclaw-go/openclaw/tools"
)

var braveFreshness = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$`)
}) // built on first use, not in every process's init

// runBrave: GET <base>/res/v1/web/search with X-Subscription-Token; the
// web results become structured results.
func runBrave(sc *searchCall) (map[string]any, error) {
	q := url.Values{}
	q.Set("q", sc.p.Query)
	q.Set("count", strconv.Itoa(sc.count))
	if sc.p.Country != "" {
		q.Set("country", sc.p.Country)
	}
	if sc.p.SearchLang != "" {
		q.Set("search_lang", sc.p.SearchLang)
	}
	if sc.p.UILang != "" {
		q.Set("ui_lang", sc.p.UILang)
	}
	if f := sc.p.Freshness; f != "" {
		if !braveFreshness().MatchString(f) {
			return nil, payloadError(tools.CodeInvalidParams, "invalid_freshness",
				"freshness must be one of pd, pw, pm, py, or a range like YYYY-MM-DDtoYYYY-MM-DD.")
		}
		q.Set("freshness", f)
	}
	h := http.Header{}
	h.Set("X-Subscription-Token", sc.key)
	var out struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
				Age         string `json:"age"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := sc.do(http.MethodGet, sc.base+"/res/v1/web/search?"+q.Encode(), h, nil, &out); err != nil {
		return nil, err
	}
	results := make([]map[string]any, 0, len(out.Web.Results))
	for _, r := range out.Web.Results {
		m := map[string]any{"title": wrapSnippet(r.Title), "url": r.URL, "description": wrapSnippet(r.Description)}
		if r.Age != "" {
			m["published"] = r.Age
		}
		if u, err := url.Parse(r.URL); err == nil && u.Hostname() != "" {
			m["siteName"] = u.Hostname()
		}
		results = append(results, m)
	}
	return map[string]any{"count": len(results), "results": results}, nil
}
