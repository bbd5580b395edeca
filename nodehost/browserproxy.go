package nodehost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/tools"
)

// browser.proxy runs one browser control route ({method, path, query,
// body}, the routes of the original's browser control API) on this
// node's own Chromium: the browser family's browser.request, through
// tools.Invoke, in this node's state dir and under its config (profiles,
// SSRF policy). Files the route's answer names (a screenshot's path, a
// download) travel back inline, as the original's payload {result, files}.

const (
	proxyMaxFileBytes  = 10 << 20
	proxyMaxTotalBytes = 16 << 20
	proxyMaxFiles      = 256
)

type proxyParams struct {
	Method        string          `json:"method"`
	Path          string          `json:"path"`
	Query         map[string]any  `json:"query"`
	Body          json.RawMessage `json:"body"`
	TimeoutMs     *int64          `json:"timeoutMs"`
	Profile       *string         `json:"profile"`
	ErrorEnvelope any             `json:"errorEnvelope"`
}

type proxyFile struct {
	Path     string `json:"path"`
	Base64   string `json:"base64"`
	MimeType string `json:"mimeType"`
}

func (h *Host) runBrowserProxy(ctx context.Context, env *tools.Env, p proxyParams) (any, error) {
	path := strings.TrimSpace(p.Path)
	if path == "" {
		return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: path required")
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	method := strings.ToUpper(strings.TrimSpace(p.Method))
	if method == "" {
		method = "GET"
	}
	if method != "GET" && method != "POST" && method != "DELETE" {
		return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: method must be GET, POST, or DELETE")
	}
	if (method == "POST" && (path == "/profiles/create" || path == "/reset-profile")) ||
		(method == "DELETE" && strings.HasPrefix(path, "/profiles/")) {
		return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: browser.proxy cannot mutate persistent browser profiles")
	}
	query := map[string]any{}
	for k, v := range p.Query {
		if v == nil {
			continue
		}
		if s, ok := v.(string); ok {
			query[k] = s
		} else {
			query[k] = fmt.Sprint(v)
		}
	}
	profile := strings.TrimSpace(nullable(p.Profile))
	if profile == "" {
		if s, ok := query["profile"].(string); ok {
			profile = strings.TrimSpace(s)
		}
	}
	if profile == "" {
		profile = gjson.GetBytes(p.Body, "profile").String()
	}
	if profile != "" {
		query["profile"] = profile
	}
	var allow []string
	_ = h.cfg.Decode("nodeHost.browserProxy.allowProfiles", &allow)
	if len(allow) > 0 && path != "/profiles" {
		sel := profile
		if sel == "" {
			sel = h.cfg.String("browser.defaultProfile", "openclaw")
		}
		if !contains(allow, sel) {
			return nil, nodeErrorf("INVALID_REQUEST", "INVALID_REQUEST: browser profile not allowed")
		}
	}
	req := map[string]any{"method": method, "path": path, "query": query}
	if len(p.Body) > 0 && string(p.Body) != "null" {
		req["body"] = p.Body
	}
	if p.TimeoutMs != nil && *p.TimeoutMs > 0 {
		req["timeoutMs"] = *p.TimeoutMs
	}
	args, _ := json.Marshal(req)
	out, err := tools.Invoke(ctx, env, tools.Call{Method: "browser.request", Args: args})
	if err != nil {
		te := failure.AsError(err)
		d := detailsOf(te)
		if st := d.Get("status").Int(); st > 0 {
			return nil, nodeErrorf("INVALID_REQUEST", "%d: %s", st, d.Get("error").String())
		}
		return nil, err
	}
	result := json.RawMessage(out)
	if len(allow) > 0 && path == "/profiles" {
		result = filterProfiles(result, allow)
	}
	files, err := proxyFiles(result)
	if err != nil {
		return nil, nodeErrorf("UNAVAILABLE", "%v", err)
	}
	payload := map[string]any{"result": result}
	if len(files) > 0 {
		payload["files"] = files
	}
	return payload, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.TrimSpace(v) == s {
			return true
		}
	}
	return false
}

func filterProfiles(res json.RawMessage, allow []string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(res, &m) != nil {
		return res
	}
	list, _ := m["profiles"].([]any)
	kept := []any{}
	for _, e := range list {
		if em, ok := e.(map[string]any); ok {
			if n, ok := em["name"].(string); ok && contains(allow, n) {
				kept = append(kept, e)
			}
		}
	}
	m["profiles"] = kept
	b, _ := json.Marshal(m)
	return b
}

// proxyFiles reads the files a route's answer names (path, imagePath,
// download.path, downloads[].path), bounded as the original bounds them.
func proxyFiles(res json.RawMessage) ([]proxyFile, error) {
	r := gjson.ParseBytes(res)
	if !r.IsObject() {
		return nil, nil
	}
	var paths []string
	add := func(v gjson.Result) {
		if v.Type == gjson.String && strings.TrimSpace(v.String()) != "" && !contains(paths, strings.TrimSpace(v.String())) {
			paths = append(paths, strings.TrimSpace(v.String()))
		}
	}
	add(r.Get("path"))
	add(r.Get("imagePath"))
	add(r.Get("download.path"))
	for _, d := range r.Get("downloads").Array() {
		add(d.Get("path"))
	}
	if len(paths) > proxyMaxFiles {
		return nil, fmt.Errorf("browser proxy returned more than %d files", proxyMaxFiles)
	}
	var files []proxyFile
	total := 0
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("browser proxy file read failed for %s: file not found", p)
		}
		b, err := atomicfile.ReadCapped(p, proxyMaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("browser proxy file read failed for %s: %v", p, err)
		}
		if total += len(b); total > proxyMaxTotalBytes {
			return nil, fmt.Errorf("browser proxy files exceed 16 MiB aggregate limit")
		}
		mt := mime.TypeByExtension(filepath.Ext(p))
		if mt == "" {
			mt = http.DetectContentType(b)
		}
		if i := strings.Index(mt, ";"); i >= 0 {
			mt = mt[:i]
		}
		files = append(files, proxyFile{Path: p, Base64: base64.StdEncoding.EncodeToString(b), MimeType: mt})
	}
	return files, nil
}
