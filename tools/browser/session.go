package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// connect opens a CDP session to a running browser.
func connect(ctx context.Context, ws string) (*rod.Browser, error) {
	b := rod.New().ControlURL(ws).Context(ctx).NoDefaultDevice()
	if err := b.Connect(); err != nil {
		return nil, err
	}
	return b, nil
}

// session is one call's view of a profile's browser.
type session struct {
	p       *profile
	b       *rod.Browser
	ws      string
	rec     *recClient
	told    *guardAnswer // the guard's answer, when it carried seq and pending
	lc      *lazyClient
	picked  *proto.TargetTargetInfo // the tab target last resolved, as the tab list gave it
	release func()
	ctx     context.Context // the call's: ends when the call does
}

// open attaches to the profile's running browser; it does not launch one
// (start does), so a stopped browser is a clear error, not a surprise launch.
func openSession(ctx context.Context, env *tools.Env, name string) (*session, error) {
	p, err := resolveProfile(env, name)
	if err != nil {
		return nil, err
	}
	ep := p.endpoint()
	if ep == "" {
		return nil, notRunning(p)
	}
	// Each call opens its own CDP connection, inside the gateway too: rod
	// caches page objects (keyboard, mouse, event loop) per connection with
	// the context of the call that first touched them, so a connection
	// shared across requests would act with a finished request's context.
	// The connection (not the browser) closes with cctx when the call ends.
	cctx, cancel := context.WithCancel(ctx)
	s := &session{p: p, release: cancel, ctx: cctx}
	// A running recorder is told the guard while the connection opens;
	// one that must be started first needs the connection's URL.
	told := make(chan bool, 1)
	go func() { told <- s.tellGuard(ctx) }()
	b, lc, ws, err := connectEndpoint(cctx, p, ep)
	early := <-told
	if err != nil {
		cancel()
		return nil, notRunning(p)
	}
	s.b, s.ws, s.lc = b, ws, lc
	if !early {
		if err := s.enforceGuard(ctx); err != nil {
			cancel()
			return nil, err
		}
	}
	return s, nil
}

// wsCacheFile remembers the browser's WebSocket URL for an endpoint, so a
// call connects without asking /json/version first.
const wsCacheFile = "cdp-ws"

// connectEndpoint connects to the browser at ep: through the WebSocket URL
// remembered for it, else (or when that fails: a restarted browser has a
// new one) through the one /json/version gives, which is then remembered;
// for a managed profile only while its own Chromium runs.
func connectEndpoint(ctx context.Context, p *profile, ep string) (*rod.Browser, *lazyClient, string, error) {
	cache := filepath.Join(p.Dir, wsCacheFile)
	if b, err := os.ReadFile(cache); err == nil {
		if e, ws, ok := strings.Cut(strings.TrimSpace(string(b)), " "); ok && e == ep && strings.HasPrefix(ws, "ws://127.0.0.1:") {
			if br, lc, err := connectCall(ctx, ws); err == nil {
				return br, lc, ws, nil
			}
		}
	}
	// A managed profile's port is only its browser's while that browser
	// runs: once it has died, whatever took the port is not ours to drive.
	if !p.AttachOnly && !p.owns(readInt(filepath.Join(p.Dir, "pid"))) {
		return nil, nil, "", notRunning(p)
	}
	ws, err := wsURL(ctx, ep)
	if err != nil {
		return nil, nil, "", err
	}
	br, lc, err := connectCall(ctx, ws)
	if err != nil {
		return nil, nil, "", err
	}
	if ws != ep {
		_ = writeFileAtomic(cache, []byte(ep+" "+ws))
	}
	return br, lc, ws, nil
}

func notRunning(p *profile) error {
	return tools.Errorf(tools.CodeUnreachable, "browser profile %q is not running: start it with `openclaw browser start`", p.Name)
}

// pages lists page targets only (never iframes or workers).
func (s *session) pages() ([]*proto.TargetTargetInfo, error) {
	res, err := proto.TargetGetTargets{}.Call(s.b)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "browser tabs: %v", err)
	}
	var out []*proto.TargetTargetInfo
	for _, t := range res.TargetInfos {
		if t.Type == proto.TargetTargetInfoTypePage {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *session) currentTabFile() string { return filepath.Join(s.p.Dir, "current-tab") }

// setCurrent records the tab later calls act on when they name none.
func (s *session) setCurrent(id proto.TargetTargetID) {
	_ = writeFileAtomic(s.currentTabFile(), []byte(id))
}

// page resolves targetId (a label, a tab handle t1, a raw id or a unique
// prefix of one: resolveTab), else the current
// tab, else the first page; with no page at all it opens about:blank. A
// tab held by an open JS dialog is refused at once: attaching to it would
// wait for the dialog (Page.enable blocks), so the caller is told to
// answer it.
func (s *session) page(targetID string) (*rod.Page, error) {
	guess, early := s.attachEarly(targetID)
	id, err := s.target(targetID)
	if early != nil {
		a := <-early
		if err == nil && id == guess && a.err == nil {
			return a.pg, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if d := s.openDialog(id); d != nil {
		return nil, tools.Errorf(tools.CodeFailed, "tab %s has an open %v dialog (%q) and waits for it: answer with `openclaw browser dialog --accept` or `--dismiss`", id, d["type"], d["message"])
	}
	pg, err := s.b.PageFromTarget(id)
	if err != nil {
		return nil, tools.Errorf(tools.CodeFailed, "browser: attach to tab %s: %v", id, err)
	}
	return pg, nil
}

// lazyPage is page for a call that reads and acts only through the
// methods lazyClient lets go without the Page domain (snapshots; click,
// hover and type): its session skips Page.enable until a call needs it.
func (s *session) lazyPage(targetID string) (*rod.Page, error) {
	if s.lc != nil {
		s.lc.setLazy(true)
		defer s.lc.setLazy(false)
	}
	return s.page(targetID)
}

type attached struct {
	pg  *rod.Page
	err error
}

// attachEarly starts attaching to the tab a lazy call most likely means
// while page lists the tabs: the one named by a full target id, or with
// none named the current tab. It does so only when the guard's answer
// said the tab has no open dialog (and a lazy attach sends nothing the
// page must answer); page uses the attachment only when the list
// resolves to that tab.
func (s *session) attachEarly(targetID string) (proto.TargetTargetID, chan attached) {
	if s.lc == nil || !s.lc.isLazy() || s.told == nil {
		return "", nil
	}
	guess := strings.TrimSpace(targetID)
	if guess == "" {
		cur, _ := os.ReadFile(s.currentTabFile())
		guess = strings.TrimSpace(string(cur))
	}
	if !rawTargetID(guess) || s.told.Pending[guess] != nil {
		return "", nil
	}
	ch := make(chan attached, 1)
	go func() {
		pg, err := s.b.PageFromTarget(proto.TargetTargetID(guess))
		ch <- attached{pg, err}
	}()
	return proto.TargetTargetID(guess), ch
}

// rawTargetID reports whether id looks like a DevTools target id (32
// hex digits), not a label, a handle or a prefix.
func rawTargetID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// target resolves a tab like page does without attaching to it.
func (s *session) target(targetID string) (proto.TargetTargetID, error) {
	ts, err := s.pages()
	if err != nil {
		return "", err
	}
	var pick *proto.TargetTargetInfo
	if targetID != "" {
		if pick, err = resolveTab(ts, s.readAliases(), targetID); err != nil {
			return "", err
		}
	} else {
		cur, _ := os.ReadFile(s.currentTabFile())
		for _, t := range ts {
			if string(t.TargetID) == strings.TrimSpace(string(cur)) {
				pick = t
			}
		}
		if pick == nil && len(ts) > 0 {
			pick = ts[0]
		}
	}
	if pick == nil {
		pg, err := s.b.Page(proto.TargetCreateTarget{URL: "about:blank"})
		if err != nil {
			return "", tools.Errorf(tools.CodeFailed, "browser: open a tab: %v", err)
		}
		s.setCurrent(pg.TargetID)
		return pg.TargetID, nil
	}
	s.picked = pick
	return pick.TargetID, nil
}

// openDialog asks the recorder (when one runs; never launching it) for
// the tab's unanswered dialog.
func (s *session) openDialog(id proto.TargetTargetID) map[string]any {
	if s.told != nil {
		if d := s.told.Pending[string(id)]; d != nil {
			return d
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var v struct {
		Dialog map[string]any `json:"dialog"`
	}
	if (&recClient{sock: s.p.recSock()}).call(ctx, recRequest{Op: "pending", TargetID: string(id)}, &v) != nil {
		return nil
	}
	return v.Dialog
}

// tab is a tab as the tabs action lists it: suggestedTargetId is the
// name to use for it (its label, else its handle), as the original's.
type tab struct {
	SuggestedTargetID string `json:"suggestedTargetId,omitempty"`
	TabID             string `json:"tabId,omitempty"`
	Label             string `json:"label,omitempty"`
	TargetID          string `json:"targetId"`
	Title             string `json:"title"`
	URL               string `json:"url"`
	Type              string `json:"type"`
	Current           bool   `json:"current,omitempty"`
}

// tabs lists the page tabs with their handles and labels; with label set,
// target is labelled first (see syncAliases).
func (s *session) tabs() ([]tab, error) { return s.labelTabs("", "") }

func (s *session) labelTabs(target proto.TargetTargetID, label string) ([]tab, error) {
	ts, err := s.pages()
	if err != nil {
		return nil, err
	}
	al, err := s.syncAliases(s.ctx, ts, target, label)
	if err != nil {
		return nil, err
	}
	cur, _ := os.ReadFile(s.currentTabFile())
	out := []tab{}
	for _, t := range ts {
		x := tab{TargetID: string(t.TargetID), Title: t.Title, URL: t.URL, Type: string(t.Type),
			Current: string(t.TargetID) == strings.TrimSpace(string(cur))}
		if a := al.Tabs[string(t.TargetID)]; a != nil {
			x.TabID, x.Label, x.SuggestedTargetID = a.TabID, a.Label, firstNonEmpty(a.Label, a.TabID)
		}
		out = append(out, x)
	}
	return out, nil
}

// tabOf finds one tab of a listing.
func tabOf(ts []tab, id proto.TargetTargetID) (tab, bool) {
	for _, t := range ts {
		if t.TargetID == string(id) {
			return t, true
		}
	}
	return tab{}, false
}

// timeout clamps a per-call budget in ms to [lo, hi] with a default.
func timeout(ms, def, lo, hi int) time.Duration {
	if ms <= 0 {
		ms = def
	}
	return time.Duration(min(max(ms, lo), hi)) * time.Millisecond
}

// closeTab closes a tab even while a dialog holds it: the recorder
// dismisses its dialogs first (and every one it opens from then on), and
// the tab is closed through the browser target, never by attaching to the
// held page.
func (s *session) closeTab(ctx context.Context, id proto.TargetTargetID) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var v map[string]any
	_ = (&recClient{sock: s.p.recSock()}).call(cctx, recRequest{Op: "closing", TargetID: string(id)}, &v)
	if _, err := (proto.TargetCloseTarget{TargetID: id}).Call(s.b.Context(cctx)); err != nil {
		return tools.Errorf(tools.CodeFailed, "close tab %s: %v", id, err)
	}
	// The target goes away after the call answers: wait for it (briefly),
	// so a tab list taken next no longer shows the closed tab.
	for {
		res, err := proto.TargetGetTargets{}.Call(s.b.Context(cctx))
		if err != nil {
			return nil
		}
		gone := true
		for _, ti := range res.TargetInfos {
			if ti.TargetID == id {
				gone = false
			}
		}
		if gone {
			return nil
		}
		select {
		case <-cctx.Done():
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}
