package browser

import (
	"context"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// Cookies and Web Storage: the original's `browser cookies` and `browser
// storage local|session` (its /cookies and /storage/:kind routes). Cookies
// belong to the browser's default context, as Playwright's context
// cookies do; the tab only says where the call ran. Cookie and storage
// values are the user's secrets: they appear in results only, never in
// errors or logs.

// cookieParams are the cookie fields of `cookies set` (flat, as the agent
// tool's schema; the route's {cookie:{...}} is flattened into them).
type cookieParams struct {
	Value    string   `json:"value"`
	Domain   string   `json:"domain"`
	Path     string   `json:"path"`
	Expires  *float64 `json:"expires"`
	HTTPOnly bool     `json:"httpOnly"`
	Secure   bool     `json:"secure"`
	SameSite string   `json:"sameSite"`
	Store    string   `json:"store"`
	// storage's key is actReq's Key (one JSON name per field in the
	// flat params).
}

func registerState() {
	reg(&tools.Action{Verb: "cookies", Summary: "Cookies of the browser: cookies [get], cookies set <name> <value> <url>, cookies clear",
		Description: "get lists every cookie of the browser's default context ({name, value, domain, path, expires, httpOnly, " +
			"secure, sameSite}); set adds or replaces one, scoped by its url (the argument after the value; on this CLI --url is the gateway's flag) " +
			"or by --domain and --path; clear removes them all.",
		Args: []string{"op", "name", "value", "url"},
		Examples: []string{"openclaw browser cookies", "openclaw browser cookies set session abc123 https://example.com",
			"openclaw browser cookies set theme dark --domain example.com --path / --same-site Lax", "openclaw browser cookies clear"},
		Schema: schemaHead +
			"," + propOp +
			"," + `"name":{"type":"string","description":"Cookie name (set)"}` +
			"," + `"value":{"type":"string","description":"Cookie value (set)"}` +
			"," + `"url":{"type":"string","description":"URL the cookie is for (set; or domain and path)"}` +
			"," + `"domain":{"type":"string","description":"Cookie domain (set; instead of url)"}` +
			"," + `"path":{"type":"string","description":"Cookie path (set; default /)"}` +
			"," + `"expires":{"type":"number","description":"Unix time in seconds (default: a session cookie)"}` +
			"," + `"httpOnly":{"type":"boolean","description":"Hide the cookie from page scripts (set)"}` +
			"," + `"secure":{"type":"boolean","description":"Send the cookie over HTTPS only (set)"}` +
			"," + `"sameSite":{"type":"string","enum":["Lax","None","Strict"],"description":"Cross-site sending rule (set; default Lax)"}` +
			schemaTail,
		Run: withSession(cookiesAction)})
	reg(&tools.Action{Verb: "storage", Summary: "localStorage or sessionStorage of the tab: storage local|session [get [key]], set <key> <value>, clear",
		Description: "get answers {values: {key: value}} (all keys, or the one asked for); set writes one key; clear empties it. " +
			"It runs in the tab's page, so it is that page's origin's storage.",
		Args: []string{"store", "op", "key", "value"},
		Examples: []string{"openclaw browser storage local get", "openclaw browser storage session set token abc",
			"openclaw browser storage local clear"},
		Schema: schemaHead +
			"," + `"store":{"type":"string","enum":["local","session"],"description":"localStorage or sessionStorage"}` +
			"," + propOp +
			"," + `"key":{"type":"string","description":"Storage key (get one, or set)"}` +
			"," + `"value":{"type":"string","description":"Value to set (default empty)"}` +
			`},"required":["store"]}`,
		Run: withSession(storageAction)})
}

// cookiesAction gets, sets or clears the default context's cookies.
func cookiesAction(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
	id, err := s.target(p.TargetID)
	if err != nil {
		return nil, err
	}
	b := s.b.Context(ctx)
	out := map[string]any{"ok": true, "targetId": string(id)}
	switch p.Op {
	case "", "get":
		res, err := proto.StorageGetCookies{}.Call(b)
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "cookies: %v", err)
		}
		list := make([]map[string]any, 0, len(res.Cookies))
		for _, c := range res.Cookies {
			list = append(list, map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain, "path": c.Path,
				"expires": float64(c.Expires), "httpOnly": c.HTTPOnly, "secure": c.Secure, "sameSite": firstNonEmpty(string(c.SameSite), "Lax")})
		}
		out["cookies"] = list
	case "set":
		c, err := cookieParam(p)
		if err != nil {
			return nil, err
		}
		if err := (proto.StorageSetCookies{Cookies: []*proto.NetworkCookieParam{c}}).Call(b); err != nil {
			// CDP's message names the field it refused, never the value.
			return nil, tools.Errorf(tools.CodeInvalidParams, "cookies set %s: %v", c.Name, err)
		}
	case "clear":
		if err := (proto.StorageClearCookies{}).Call(b); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "cookies clear: %v", err)
		}
	default:
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown cookies op %q (get, set, clear)", p.Op)
	}
	return tools.JSONResult(out)
}

// cookieParam checks a cookie to set as the original does: a name, and a
// url or both domain and path.
func cookieParam(p params) (*proto.NetworkCookieParam, error) {
	if p.Name == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "cookie name and value are required")
	}
	url := strings.TrimSpace(p.URL)
	domain, path := strings.TrimSpace(p.Domain), strings.TrimSpace(p.Path)
	if url == "" && (domain == "" || path == "") {
		return nil, tools.Errorf(tools.CodeInvalidParams, "cookie requires url, or domain+path")
	}
	c := &proto.NetworkCookieParam{Name: p.Name, Value: p.Value, URL: url, Domain: domain, Path: path,
		HTTPOnly: p.HTTPOnly, Secure: p.Secure}
	switch p.SameSite {
	case "":
	case "Lax", "None", "Strict":
		c.SameSite = proto.NetworkCookieSameSite(p.SameSite)
	default:
		return nil, tools.Errorf(tools.CodeInvalidParams, "sameSite must be Lax, None or Strict")
	}
	if p.Expires != nil {
		c.Expires = proto.TimeSinceEpoch(*p.Expires)
	}
	return c, nil
}

// storageJS runs in the page: get (all keys or one), set, clear.
const storageJS = `(kind, op, key, value) => {
  const store = kind === "session" ? window.sessionStorage : window.localStorage;
  if (op === "set") { store.setItem(key, value); return null }
  if (op === "clear") { store.clear(); return null }
  const out = {};
  if (key) { const v = store.getItem(key); if (v !== null) out[key] = v; return out }
  for (let i = 0; i < store.length; i++) { const k = store.key(i); const v = k === null ? null : store.getItem(k); if (v !== null) out[k] = v }
  return out
}`

// storageAction reads or writes the tab's localStorage or sessionStorage.
func storageAction(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
	if p.Store != "local" && p.Store != "session" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "store must be local|session")
	}
	op := firstNonEmpty(p.Op, "get")
	switch op {
	case "get", "clear":
	case "set":
		if strings.TrimSpace(p.Key) == "" {
			return nil, tools.Errorf(tools.CodeInvalidParams, "key is required")
		}
	default:
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown storage op %q (get, set, clear)", op)
	}
	pg, err := s.page(p.TargetID)
	if err != nil {
		return nil, err
	}
	res, err := pg.Context(ctx).Evaluate(rod.Eval(storageJS, p.Store, op, strings.TrimSpace(p.Key), p.Value))
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "storage %s %s: %v", p.Store, op, err)
	}
	out := map[string]any{"ok": true, "targetId": string(pg.TargetID)}
	if op == "get" {
		values := map[string]string{}
		for k, v := range res.Value.Map() {
			values[k] = v.Str()
		}
		out["values"] = values
	}
	return tools.JSONResult(out)
}
