package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/tidwall/gjson"
)

// params is the flat parameter object of every browser action (the
// original's schema: no unions, every field optional, the runtime checks).
type params struct {
	actReq
	Profile        string   `json:"profile"`
	TargetID       string   `json:"targetId"`
	TargetURL      string   `json:"targetUrl"`
	Format         string   `json:"format"`
	SnapshotFormat string   `json:"snapshotFormat"`
	Interactive    bool     `json:"interactive"`
	MaxChars       *int     `json:"maxChars"`
	Limit          int      `json:"limit"`
	FullPage       bool     `json:"fullPage"`
	Type           string   `json:"type"`
	Request        *actReq  `json:"request"`
	BrowserProfile string   `json:"browserProfile"`
	Name           string   `json:"name"`
	Color          string   `json:"color"`
	CdpURL         string   `json:"cdpUrl"`
	UserDataDir    string   `json:"userDataDir"`
	Driver         string   `json:"driver"`
	Level          string   `json:"level"`
	SinceLast      bool     `json:"sinceLast"`
	Filter         string   `json:"filter"`
	Clear          bool     `json:"clear"`
	ID             int64    `json:"id"`
	Accept         bool     `json:"accept"`
	Dismiss        bool     `json:"dismiss"`
	PromptText     string   `json:"promptText"`
	Prompt         string   `json:"prompt"`
	Paths          []string `json:"paths"`
	InputRef       string   `json:"inputRef"`
	Element        string   `json:"element"`
	cookieParams
	Label string `json:"label"`
	Op    string `json:"op"`
	Index *int   `json:"index"`
}

// profile is the named browser profile (profile or its CLI-friendly
// alias browserProfile).
func (p params) profile() string { return firstNonEmpty(p.Profile, p.BrowserProfile) }

// Common schema properties.
const (
	propProfile = `"profile":{"type":"string","description":"Browser profile (default browser.defaultProfile, else openclaw)"},` +
		`"browserProfile":{"type":"string","description":"Alias of profile; on the CLI --browser-profile (the original's flag: --profile picks the state profile)"}`
	propTarget    = `"targetId":{"type":"string","description":"Tab: its label, its handle (t1), its id or a unique prefix of the id (default: the current tab)"}`
	propTimeout   = `"timeoutMs":{"type":"integer","minimum":1,"description":"Budget in ms"}`
	propRef       = `"ref":{"type":"string","description":"Element ref from a snapshot (e12)"}`
	propURL       = `"targetUrl":{"type":"string","description":"URL to load"},"url":{"type":"string","description":"Alias of targetUrl"}`
	propOp        = `"op":{"type":"string","description":"cookies and storage: get (default), set or clear; tab: list (default), new, label, select or close"}`
	propLabel     = `"label":{"type":"string","description":"Tab label: letters, digits, _ . : - (at most 64); usable wherever a targetId is"}`
	propDouble    = `"double":{"type":"boolean","description":"Alias of doubleClick (the original CLI's --double)"}`
	propModifiers = `"modifiers":{"type":"array","items":{"type":"string"},"description":"Keys held during the click: Alt, Control, ControlOrMeta (Control here), Meta, Shift; comma-separated or repeated"}`
	propFn        = `"fn":{"type":"string","description":"JavaScript: a function, an expression, or a body with return"}`
	propWaitArgs  = `"timeMs":{"type":"integer","minimum":0,"maximum":30000,"description":"Sleep this long first"},` +
		`"text":{"type":"string","description":"Wait until this text is visible"},` +
		`"textGone":{"type":"string","description":"Wait until this text is gone"},` +
		`"selector":{"type":"string","description":"Wait until a CSS selector is visible"},` + propFn
)

// schemaHead and schemaTail enclose an action's properties: written as
// one constant expression per action, the schemas cost nothing at init.
const (
	schemaHead = `{"type":"object","properties":{` + propProfile + "," + propTarget
	schemaTail = `}}`
)

// handler wraps a browser action: resolves the profile and session.
type handler func(ctx context.Context, env *tools.Env, s *session, p params) (any, error)

func withSession(h handler) tools.Handler {
	return tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
		s, err := openSession(ctx, env, p.profile())
		if err != nil {
			return nil, err
		}
		defer s.release()
		return h(ctx, env, s, p)
	})
}

func renderText(w io.Writer, r gjson.Result) error {
	var err error
	r.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "text" {
			_, err = fmt.Fprintln(w, b.Get("text").String())
		}
		return err == nil
	})
	return err
}

func reg(a *tools.Action) {
	a.Tool = "browser"
	a.Where = tools.Either
	describe(a)
	a.Run = drained(a.Run)
	withNodeTarget(a) // target_node.go: target:"node" relays through browser.proxy
	tools.Register(a)
}

// lookOnly are the verbs that only look at the browser; changes are the
// ones that may destroy state (a page's form, a profile, a tab). Every
// browser action reaches the web, so all are open world (MCP hints).
var (
	lookOnly = map[string]bool{"status": true, "tabs": true, "snapshot": true, "screenshot": true, "console": true,
		"pdf": true, "profiles": true, "requests": true, "response-body": true, "downloads": true}
	changes = map[string]bool{"act": true, "click": true, "type": true, "fill": true, "press": true, "select": true,
		"upload": true, "evaluate": true, "dialog": true, "close": true, "stop": true, "delete-profile": true,
		"reset-profile": true, "cookies": true, "storage": true, "tab": true}
)

func describe(a *tools.Action) {
	a.OpenWorld = true
	a.ReadOnly = lookOnly[a.Verb]
	a.Idempotent = lookOnly[a.Verb]
	a.Destructive = changes[a.Verb]
}

// drained runs a call inside the gateway under the browser service's
// watch, so shutdown can end it by the drain deadline (service.go).
func drained(run tools.Handler) tools.Handler {
	return func(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
		svc := gatewayService(env)
		if svc == nil {
			return run(ctx, env, raw)
		}
		ctx, done, err := svc.track(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
		return run(ctx, env, raw)
	}
}

func init() {
	reg(&tools.Action{Verb: "status", Summary: "Show the browser profile's state (running, CDP port, pid)",
		Schema: schemaHead + schemaTail, Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			pr, err := resolveProfile(env, p.profile())
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(pr.status(ctx))
		})})
	reg(&tools.Action{Verb: "start", Summary: "Launch the profile's Chromium (detached; it outlives this command)",
		Examples: []string{"openclaw browser start", "openclaw browser start --browser-profile work"},
		Schema:   schemaHead + schemaTail, Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			pr, err := resolveProfile(env, p.profile())
			if err != nil {
				return nil, err
			}
			running := pr.status(ctx).CdpReady
			st, err := pr.start(ctx, env)
			if err != nil {
				return nil, err
			}
			if svc := gatewayService(env); svc != nil && !running && !pr.AttachOnly {
				svc.launchedHere(pr, st.Pid) // it stops with the gateway
			}
			return tools.JSONResult(st)
		})})
	reg(&tools.Action{Verb: "stop", Summary: "Stop the profile's Chromium (attach-only profiles are left running)",
		Schema: schemaHead + schemaTail, Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			pr, err := resolveProfile(env, p.profile())
			if err != nil {
				return nil, err
			}
			st, err := pr.stop(ctx)
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(st)
		})})
	reg(&tools.Action{Verb: "profiles", Summary: "List the browser profiles (configured plus the default) and whether each runs",
		Render: renderProfiles,
		Schema: `{"type":"object","properties":{}}`, Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			c, err := loadConf(env)
			if err != nil {
				return nil, err
			}
			def := firstNonEmpty(c.DefaultProfile, defaultProfile)
			names := []string{def}
			for n := range c.Profiles {
				if n != def {
					names = append(names, n)
				}
			}
			sort.Strings(names[1:])
			out := []map[string]any{}
			for _, n := range names {
				pr, err := resolveProfile(env, n)
				if err != nil {
					out = append(out, map[string]any{"name": n, "error": err.Error()})
					continue
				}
				st := pr.status(ctx)
				out = append(out, map[string]any{"name": n, "cdpPort": st.CdpPort, "cdpUrl": st.CdpURL, "running": st.Running,
					"color": pr.Color, "isDefault": n == def, "isRemote": pr.AttachOnly})
			}
			return tools.JSONResult(map[string]any{"profiles": out})
		})})
	reg(&tools.Action{Verb: "create-profile", Summary: "Add a browser profile to the config (a managed one gets the first free CDP port of 18800-18899)",
		Examples: []string{"openclaw browser create-profile --name work", "openclaw browser create-profile --name remote --cdp-url http://10.0.0.42:9222"},
		Schema: `{"type":"object","properties":{"name":{"type":"string","description":"Profile name: lowercase letters, digits, hyphens (at most 64)"},` +
			`"color":{"type":"string","description":"Profile color #RRGGBB"},"cdpUrl":{"type":"string","description":"Attach-only CDP endpoint (http/https/ws/wss)"},` +
			`"userDataDir":{"type":"string","description":"Only with driver=existing-session (not supported here)"},"driver":{"type":"string","enum":["openclaw","existing-session"],"description":"openclaw: a browser this build launches and manages (default); existing-session: attach to a running browser (not supported here)"}},"required":["name"]}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			out, err := createProfile(ctx, env, createProfileParams{Name: p.Name, Color: p.Color, CdpURL: p.CdpURL, UserDataDir: p.UserDataDir, Driver: p.Driver})
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "delete-profile", Summary: "Stop a profile's browser, remove it from the config and move its data to the trash",
		Schema: `{"type":"object","properties":{"name":{"type":"string","description":"Profile to delete (not the default one)"}},"required":["name"]}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			out, err := deleteProfile(ctx, env, p.Name)
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "reset-profile", Summary: "Free a stuck profile: kill its browser (stale ones too), clear Chromium's locks, move its user data to the trash",
		Schema: schemaHead + schemaTail, Run: tools.Typed(func(ctx context.Context, env *tools.Env, p params) (any, error) {
			out, err := resetProfile(ctx, env, p.profile())
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "tabs", Summary: "List the open tabs", Schema: schemaHead + schemaTail, Render: renderTabs,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			ts, err := s.tabs()
			if err != nil {
				return nil, err
			}
			return tools.JSONResult(map[string]any{"running": true, "tabs": ts})
		})})
	reg(&tools.Action{Verb: "open", Summary: "Open a URL in a new tab (it becomes the current tab); --label names it", Args: []string{"targetUrl"},
		Examples: []string{"openclaw browser open https://example.com", "openclaw browser open https://mail.example.com --label mail"},
		Schema: schemaHead +
			"," + propURL +
			"," + propLabel +
			"," + propTimeout +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			u := firstNonEmpty(p.TargetURL, p.URL)
			if u == "" {
				return nil, tools.Errorf(tools.CodeInvalidParams, "open needs a URL")
			}
			label := ""
			if p.Label != "" {
				l, err := validLabel(p.Label)
				if err != nil {
					return nil, err
				}
				label = l
			}
			if err := checkURL(ctx, s.p.conf.SSRF, u); err != nil {
				return nil, err
			}
			pg, err := s.b.Page(proto.TargetCreateTarget{URL: "about:blank"})
			if err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "open: %v", err)
			}
			s.setCurrent(pg.TargetID)
			url, err := navigate(ctx, s, pg, u, p.TimeoutMs)
			if err != nil {
				return nil, err
			}
			ts, err := s.labelTabs(pg.TargetID, label)
			if err != nil {
				return nil, err
			}
			t, _ := tabOf(ts, pg.TargetID)
			t.TargetID, t.URL, t.Type, t.Current = string(pg.TargetID), url, "page", true
			return tools.JSONResult(t)
		})})
	reg(&tools.Action{Verb: "tab", Summary: "Tabs by position and label: tab [list], tab new [--label L], tab label <tab> <label>, tab select <n>, tab close [n]",
		Description: "Positions count from 1 in `openclaw browser tabs` order (index counts from 0). A label (letters, digits, _ . : -; " +
			"at most 64) names the tab wherever a targetId is taken: labels first, then handles (t1), then raw ids or a unique prefix. " +
			"A label given to a second tab moves to it.",
		Args: []string{"op", "targetId", "label"},
		Examples: []string{"openclaw browser tab label t2 mail", "openclaw browser snapshot --target-id mail",
			"openclaw browser tab new --label scratch", "openclaw browser tab select 2"},
		Schema: schemaHead +
			"," + propOp +
			"," + propLabel +
			"," + `"index":{"type":"integer","minimum":0,"description":"Tab position from 0 (select, close); on the CLI the position from 1 goes where targetId is"}` +
			schemaTail,
		Run: withSession(tabAction)})
	reg(&tools.Action{Verb: "navigate", Summary: "Load a URL in the current (or given) tab", Args: []string{"targetUrl"},
		Schema: schemaHead +
			"," + propURL +
			"," + propTimeout +
			schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			u := firstNonEmpty(p.TargetURL, p.URL)
			if u == "" {
				return nil, tools.Errorf(tools.CodeInvalidParams, "navigate needs a URL")
			}
			if err := checkURL(ctx, s.p.conf.SSRF, u); err != nil {
				return nil, err
			}
			pg, err := s.page(p.TargetID)
			if err != nil {
				return nil, err
			}
			rec, seq := s.mark(ctx)
			url, err := navigate(ctx, s, pg, u, p.TimeoutMs)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"ok": true, "targetId": string(pg.TargetID), "url": url}
			// The document's HTTP status and the console errors of the load.
			sum := rec.effects(ctx, string(pg.TargetID), seq, 2000, false, "")
			if nav, ok := sum["navigated"].(map[string]any); ok && nav["status"] != nil {
				out["status"] = nav["status"]
			}
			if errs, ok := sum["consoleErrors"]; ok {
				out["consoleErrors"] = errs
			}
			return tools.JSONResult(out)
		})})
	reg(&tools.Action{Verb: "focus", Summary: "Make a tab the current one", Args: []string{"targetId"},
		Schema: schemaHead + `},"required":["targetId"]}`,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			pg, err := s.page(p.TargetID)
			if err != nil {
				return nil, err
			}
			if _, err := pg.Activate(); err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "focus: %v", err)
			}
			s.setCurrent(pg.TargetID)
			return tools.JSONResult(map[string]any{"ok": true, "targetId": string(pg.TargetID)})
		})})
	reg(&tools.Action{Verb: "close", Summary: "Close a tab (default: the current one)", Args: []string{"targetId"},
		Schema: schemaHead + schemaTail,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			id, err := s.target(p.TargetID)
			if err != nil {
				return nil, err
			}
			if err := s.closeTab(ctx, id); err != nil {
				return nil, err
			}
			return tools.JSONResult(map[string]any{"ok": true, "targetId": string(id)})
		})})
	reg(snapshotDef())
	registerState()
	reg(&tools.Action{Verb: "screenshot", Summary: "Capture the tab (or an element) as an image, stored as media", Media: true,
		Schema: schemaHead +
			"," + `"fullPage":{"type":"boolean","description":"Capture the whole scrollable page, not just the viewport"}` +
			"," + propRef +
			"," + `"type":{"type":"string","enum":["png","jpeg"],"description":"Image format (default png)"}` +
			"," + propTimeout +
			schemaTail,
		Render: renderText,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			return capturePage(ctx, env, s, p, false)
		})})
	reg(&tools.Action{Verb: "pdf", Summary: "Print the tab to PDF, stored as media", Media: true,
		Schema: schemaHead +
			"," + propTimeout +
			schemaTail, Render: renderText,
		Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
			return capturePage(ctx, env, s, p, true)
		})})
	const actSchema = schemaHead +
		"," + `"kind":{"type":"string","enum":["click","type","press","hover","drag","select","fill","resize","wait","evaluate","close"],"description":"What to do; the other fields are that kind's arguments"}` +
		"," + propRef +
		"," + `"request":{"type":"object","description":"The act request ({kind, ref, ...}); its fields may also be given at top level"}` +
		"," + `"key":{"type":"string","description":"Key or chord to press (press): Enter, Control+A"}` +
		"," + `"values":{"type":"array","items":{"type":"string"},"description":"Option values or labels to choose (select)"}` +
		"," + `"fields":{"type":"array","items":{"type":["object","array"]},"description":"Fields to fill (fill): [{ref, type?, value}]; type checkbox/radio sets checked"}` +
		"," + `"submit":{"type":"boolean","description":"Press Enter after typing (type)"}` +
		"," + `"slowly":{"type":"boolean","description":"Type key by key (type)"}` +
		"," + `"doubleClick":{"type":"boolean","description":"Double click (click)"}` +
		"," + propDouble +
		"," + propModifiers +
		"," + `"button":{"type":"string","enum":["left","right","middle"],"description":"Mouse button (click; default left)"}` +
		"," + `"width":{"type":"integer","description":"Viewport width in CSS pixels (resize)"}` +
		"," + `"height":{"type":"integer","description":"Viewport height in CSS pixels (resize)"}` +
		"," + `"textGone":{"type":"string","description":"Wait until this text is gone (wait)"}` +
		"," + `"timeMs":{"type":"integer","minimum":0,"maximum":30000,"description":"Milliseconds to wait (wait)"}` +
		"," + `"selector":{"type":"string","description":"CSS selector to wait for (wait)"}` +
		"," + `"text":{"type":"string","description":"Text to type (type), or to wait for (wait)"}` +
		"," + `"startRef":{"type":"string","description":"Ref of the element to drag (drag)"}` +
		"," + `"endRef":{"type":"string","description":"Ref of the drop target (drag)"}` +
		"," + propFn +
		"," + propTimeout +
		schemaTail
	reg(&tools.Action{Verb: "act", Summary: "Act on the page: click, type, press, hover, drag, select, fill, resize, wait, evaluate, close",
		Description: "The result says what the act caused: navigated {url,status}, consoleErrors, dialogs, downloads " +
			"(stored as media), tabsOpened, requests, blockedRequests (refused by browser.ssrfPolicy), and tookMs; blockedByDialog when a dialog it opened waits for an answer.",
		Schema: actSchema, Run: withSession(actAction)})
	kinds := []struct {
		kind, summary string
		args          []string
		schema        string
		examples      []string
	}{
		{"click", "Click an element by ref (--double, --button right|middle, --modifiers Shift,Alt)", []string{"ref"}, schemaHead +
			"," + propRef +
			"," + `"doubleClick":{"type":"boolean","description":"Double click"}` +
			"," + propDouble +
			"," + `"button":{"type":"string","enum":["left","right","middle"],"description":"Mouse button (default left)"}` +
			"," + propModifiers +
			"," + propTimeout +
			`},"required":["ref"]}`,
			[]string{"openclaw browser click e12", "openclaw browser click e12 --modifiers Shift,Alt", "openclaw browser click e12 --button right", "openclaw browser click e12 --double"}},
		{"type", "Type into a field by ref (replaces its value)", []string{"ref", "text"}, schemaHead +
			"," + propRef +
			"," + `"text":{"type":"string","description":"Text to type"}` +
			"," + `"submit":{"type":"boolean","description":"Press Enter after typing"}` +
			"," + `"slowly":{"type":"boolean","description":"Type key by key"}` +
			"," + propTimeout +
			`},"required":["ref","text"]}`,
			[]string{`openclaw browser type e7 "alice" --submit`}},
		{"press", "Press a key or chord (Enter, Control+A)", []string{"key"}, schemaHead +
			"," + `"key":{"type":"string","description":"Key or chord: Enter, Tab, Control+A, Shift+ArrowDown"}` +
			`},"required":["key"]}`,
			[]string{"openclaw browser press Enter"}},
		{"hover", "Hover an element by ref", []string{"ref"}, schemaHead +
			"," + propRef +
			"," + propTimeout +
			`},"required":["ref"]}`,
			nil},
		{"drag", "Drag one element onto another (refs)", []string{"startRef", "endRef"}, schemaHead +
			"," + `"startRef":{"type":"string","description":"Ref of the element to drag"}` +
			"," + `"endRef":{"type":"string","description":"Ref of the drop target"}` +
			"," + propTimeout +
			`},"required":["startRef","endRef"]}`,
			[]string{"openclaw browser drag e3 e8"}},
		{"select", "Choose options of a <select> by value or label", []string{"ref", "values..."}, schemaHead +
			"," + propRef +
			"," + `"values":{"type":"array","items":{"type":"string"},"minItems":1,"description":"Option values or labels to choose"}` +
			"," + propTimeout +
			`},"required":["ref","values"]}`,
			[]string{"openclaw browser select e9 blue"}},
		{"fill", "Fill several fields: --fields '[{\"ref\":\"e7\",\"value\":\"alice\"}]'", nil, schemaHead +
			"," + `"fields":{"type":"array","items":{"type":["object","array"]},"minItems":1,"description":"[{ref, type?, value}]; type checkbox/radio sets checked"}` +
			"," + propTimeout +
			`},"required":["fields"]}`,
			nil},
		{"wait", "Wait for text, its absence, a selector, a URL glob, a JS predicate or a time", nil, schemaHead +
			"," + propWaitArgs +
			"," + `"url":{"type":"string","description":"URL glob"}` +
			"," + propTimeout +
			schemaTail,
			[]string{"openclaw browser wait --text-gone Loading"}},
		{"evaluate", "Run JavaScript in the page and return its result", nil, schemaHead +
			"," + propFn +
			"," + propRef +
			"," + propTimeout +
			`},"required":["fn"]}`,
			[]string{`openclaw browser evaluate --fn '() => document.title'`}},
		{"resize", "Set the viewport size", []string{"width", "height"}, schemaHead +
			"," + `"width":{"type":"integer","minimum":1,"maximum":8192,"description":"Viewport width in CSS pixels"}` +
			"," + `"height":{"type":"integer","minimum":1,"maximum":8192,"description":"Viewport height in CSS pixels"}` +
			`},"required":["width","height"]}`,
			nil},
	}
	for _, k := range kinds {
		kind := k.kind
		reg(&tools.Action{Verb: kind, Summary: k.summary, Args: k.args, Schema: k.schema, Examples: k.examples,
			Run: withSession(func(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
				p.Kind = kind
				p.Request = nil
				return actAction(ctx, env, s, p)
			})})
	}
}

// navigate loads u in pg, waits for the load event, and checks the final
// URL against the policy again (a redirect may land somewhere private).
func navigate(ctx context.Context, s *session, pg *rod.Page, u string, ms int) (string, error) {
	d := timeout(ms, 20000, 1000, 120000)
	nctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := pg.Context(nctx).Navigate(u); err != nil {
		return "", tools.Errorf(tools.CodeFailed, "navigate %s: %v", u, err)
	}
	if err := pg.Context(nctx).WaitLoad(); err != nil {
		return "", tools.Errorf(tools.CodeTimeout, "navigate %s: page did not load within %d ms", u, d.Milliseconds())
	}
	info, err := pg.Context(ctx).Info()
	if err != nil {
		return "", tools.Errorf(tools.CodeFailed, "navigate: %v", err)
	}
	if info.URL != u {
		if err := checkURL(ctx, s.p.conf.SSRF, info.URL); err != nil {
			_ = pg.Navigate("about:blank")
			return "", err
		}
	}
	return info.URL, nil
}

// actAction runs one act and reports what it caused. The recorder marks
// the event log first; the act runs while a watcher waits for a dialog it
// may open (input then blocks until the dialog is answered, so the act is
// given up and the open dialog reported); afterwards the recorder waits,
// bounded, for the navigation, requests and downloads the act started and
// returns them with the tab's new console errors, dialogs and tabs.
func actAction(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
	r := p.actReq
	if p.Request != nil {
		r = *p.Request
	}
	if r.Kind == "close" { // never attaches: a dialog may hold the tab
		id, err := s.target(p.TargetID)
		if err != nil {
			return nil, err
		}
		if err := s.closeTab(ctx, id); err != nil {
			return nil, err
		}
		return tools.JSONResult(map[string]any{"ok": true, "kind": r.Kind, "targetId": string(id)})
	}
	attach := s.page
	if r.Kind == "click" || r.Kind == "hover" || (r.Kind == "type" && !r.Slowly) {
		attach = s.lazyPage // they act through the calls it allows
	}
	pg, err := attach(p.TargetID)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	target := string(pg.TargetID)
	rec, seq := s.mark(ctx)
	if rec != nil {
		// The override must be set by the long-lived recorder session: the
		// one that sets it clears it when it detaches.
		r.resize = func(w, h int) error {
			var v map[string]any
			return rec.call(ctx, recRequest{Op: "resize", TargetID: target, Width: w, Height: h}, &v)
		}
		r.syncMarker = actSyncPrefix + randomToken()
	}
	actCtx, cancelAct := context.WithCancel(ctx)
	defer cancelAct()
	type outcome struct {
		extra map[string]any
		err   error
	}
	done := make(chan outcome, 1)
	go func() {
		extra, err := act(actCtx, env, s.p.conf, pg, r)
		done <- outcome{extra, err}
	}()
	dialogs := make(chan map[string]any, 1)
	if rec != nil && r.Kind != "close" {
		wctx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		go func() {
			var v struct {
				Dialog map[string]any `json:"dialog"`
			}
			if rec.call(wctx, recRequest{Op: "waitDialog", TargetID: target, Seq: seq}, &v) == nil && v.Dialog != nil {
				dialogs <- v.Dialog
			}
		}()
	}
	var extra map[string]any
	var blocked map[string]any
	select {
	case o := <-done:
		if o.err != nil {
			return nil, o.err
		}
		extra = o.extra
	case blocked = <-dialogs:
		cancelAct()
	}
	out := map[string]any{"ok": true, "kind": r.Kind, "targetId": target}
	urlKnown := false

	if rec != nil && r.Kind != "close" {
		settle := int(min(timeout(r.TimeoutMs, 8000, 500, 60000), 10*time.Second).Milliseconds())
		if blocked != nil {
			settle = 0
		}
		_, expectDownload := extra[expectDownloadKey]
		marker, _ := extra[syncMarkerKey].(string)
		delete(extra, expectDownloadKey)
		delete(extra, syncMarkerKey)
		sum := rec.effects(ctx, target, seq, settle, expectDownload, marker)
		if u, ok := sum[settleURLKey].(map[string]any); ok {
			delete(sum, settleURLKey)
			// The recorder followed the tab's navigations: its URL is the
			// last one's, else the one the tab list gave before the act.
			if last, _ := u["url"].(string); last != "" {
				out["url"], urlKnown = last, true
			} else if s.picked != nil && string(s.picked.TargetID) == target {
				out["url"], urlKnown = s.picked.URL, true
			}
		}
		for k, v := range sum {
			out[k] = v
		}
	}
	if r.Kind != "close" && !urlKnown {
		if info, err := pg.Context(ctx).Info(); err == nil {
			out["url"] = info.URL
		}
	}
	if blocked != nil {
		out["blockedByDialog"] = blocked
		out["hint"] = "a dialog is open and the page waits for it: answer with `openclaw browser dialog --accept` (or --dismiss, --prompt-text TEXT)"
	}
	for k, v := range extra {
		out[k] = v
	}
	out["tookMs"] = time.Since(start).Milliseconds()
	return tools.JSONResult(out)
}

// capturePage stores a screenshot or PDF as media and names it in the text
// as MEDIA:<path> (details.media carries the reference too).
func capturePage(ctx context.Context, env *tools.Env, s *session, p params, pdf bool) (any, error) {
	media, err := env.NeedMedia("browser screenshots")
	if err != nil {
		return nil, err
	}
	pg, err := s.page(p.TargetID)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout(p.TimeoutMs, 20000, 500, 120000))
	defer cancel()
	pg = pg.Context(cctx)
	var data []byte
	var src io.Reader // what is stored: the screenshot's bytes, or the PDF as Chromium streams it
	mime, hint := "image/png", "screenshot.png"
	switch {
	case pdf:
		r, err := pg.PDF(&proto.PagePrintToPDF{PrintBackground: true})
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "pdf: %v", err)
		}
		defer r.Close()
		src, mime, hint = r, "application/pdf", "page.pdf"
	default:
		format := proto.PageCaptureScreenshotFormatPng
		if p.Type == "jpeg" {
			format, mime, hint = proto.PageCaptureScreenshotFormatJpeg, "image/jpeg", "screenshot.jpg"
		}
		if p.Ref != "" {
			if p.FullPage {
				return nil, tools.Errorf(tools.CodeInvalidParams, "fullPage cannot be combined with ref")
			}
			el, err := element(pg, p.Ref)
			if err != nil {
				return nil, err
			}
			if data, err = el.Screenshot(format, 85); err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "screenshot %s: %v", normRef(p.Ref), err)
			}
		} else {
			q := 85
			req := &proto.PageCaptureScreenshot{Format: format}
			if format == proto.PageCaptureScreenshotFormatJpeg {
				req.Quality = &q
			}
			if data, err = pg.Screenshot(p.FullPage, req); err != nil {
				return nil, tools.Errorf(tools.CodeFailed, "screenshot: %v", err)
			}
		}
	}
	if src == nil {
		src = bytes.NewReader(data)
	}
	ref, err := media.Save(ctx, src, mime, hint)
	if err != nil {
		if pdf {
			return nil, tools.Errorf(tools.CodeFailed, "pdf: %v", err)
		}
		return nil, tools.AsError(err)
	}
	url := ""
	if info, err := pg.Info(); err == nil {
		url = info.URL
	}
	return tools.TextResult("MEDIA:"+ref.Path, map[string]any{"ok": true, "path": ref.Path, "targetId": string(pg.TargetID), "url": url, "media": ref}), nil
}
