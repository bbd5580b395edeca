package browser

import (
	"context"

	"github.com/openclaw-go/openclaw/tools"
)

// snapParams are the snapshot action's params: the common ones plus the
// snapshot options (A.5). selector comes from the act fields.
type snapParams struct {
	params
	Compact   bool   `json:"compact"`
	Depth     *int   `json:"depth"`
	Frame     string `json:"frame"`
	Mode      string `json:"mode"`
	Efficient bool   `json:"efficient"`
	URLs      bool   `json:"urls"`
	Diff      bool   `json:"diff"`
}

// snapDefaults is browser.snapshotDefaults: mode "efficient" makes the
// efficient preset the default of snapshots that name no format.
type snapDefaults struct {
	Mode string `json:"mode"`
}

// Snapshot defaults (A.5, current builds).
const (
	defaultMaxChars   = 40000
	efficientMaxChars = 8000
	efficientDepth    = 6
)

func snapshotDef() *tools.Action {
	return &tools.Action{Verb: "snapshot", Summary: "The page's accessibility tree with element refs (e12) for act",
		Description: "Refs stay bound to their elements across snapshots and processes until the element goes " +
			"away or the page navigates; a gone element's ref fails with the advice to snapshot again. Iframes " +
			"(same- and cross-origin) and open shadow roots appear inline; refs inside a frame carry its prefix " +
			"(f13e2: element e2 of the frame shown by iframe e13). --diff prints only what changed since this " +
			"tab's last snapshot, or \"unchanged\".",
		Examples: []string{"openclaw browser snapshot", "openclaw browser snapshot --interactive",
			"openclaw browser snapshot --efficient", "openclaw browser snapshot --diff",
			"openclaw browser snapshot --selector main --depth 3", "openclaw browser snapshot --max-chars 2000"},
		Schema: schemaHead +
			"," + `"format":{"type":"string","enum":["ai","aria"],"description":"ai (default): role tree with refs; aria: the raw accessibility tree"}` +
			"," + `"snapshotFormat":{"type":"string","enum":["ai","aria"],"description":"Alias of format"}` +
			"," + `"interactive":{"type":"boolean","description":"Only interactive elements, as a flat list"}` +
			"," + `"compact":{"type":"boolean","description":"Drop unnamed structural wrappers and lines that carry nothing"}` +
			"," + `"depth":{"type":"integer","minimum":0,"description":"Max tree depth (0 = top-level lines only)"}` +
			"," + `"selector":{"type":"string","description":"Scope to the first element matching this CSS selector"}` +
			"," + `"frame":{"type":"string","description":"Scope to the document of the iframe matching this CSS selector"}` +
			"," + `"mode":{"type":"string","enum":["efficient"],"description":"efficient: interactive, compact, depth 6, maxChars 8000"}` +
			"," + `"efficient":{"type":"boolean","description":"Same as mode=efficient"}` +
			"," + `"urls":{"type":"boolean","description":"Append a Links: block with each link's absolute URL"}` +
			"," + `"diff":{"type":"boolean","description":"Only what changed since this tab's last snapshot (unified diff; \"unchanged\" when nothing did)"}` +
			"," + `"maxChars":{"type":"integer","minimum":0,"description":"Cut at a line boundary past this many characters (default 40000, efficient 8000; 0 = no cap)"}` +
			"," + `"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"aria format: at most this many nodes (default 500)"}` +
			"," + propTimeout +
			schemaTail,
		Render: renderText,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p snapParams) (any, error) {
			s, err := openSession(ctx, env, p.Profile)
			if err != nil {
				return nil, err
			}
			defer s.release()
			return snapshotAction(ctx, s, p)
		})}
}

func snapshotAction(ctx context.Context, s *session, p snapParams) (any, error) {
	format := firstNonEmpty(p.Format, p.SnapshotFormat, "ai")
	if format != "ai" && format != "aria" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown snapshot format %q (ai, aria)", format)
	}
	if p.Mode != "" && p.Mode != "efficient" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown snapshot mode %q (efficient)", p.Mode)
	}
	// browser.snapshotDefaults.mode=efficient applies when no format is named.
	efficient := p.Efficient || p.Mode == "efficient" ||
		(p.Format == "" && p.SnapshotFormat == "" && s.p.conf.SnapDefaults.Mode == "efficient")
	if format == "aria" && (efficient || p.Compact || p.Depth != nil || p.Selector != "" || p.Frame != "" || p.URLs || p.Interactive) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "interactive, compact, depth, selector, frame, urls and efficient need format ai")
	}
	if p.Selector != "" && p.Frame != "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "give selector or frame, not both")
	}
	interactive, compact, depth := p.Interactive, p.Compact, p.Depth
	maxChars := defaultMaxChars
	if efficient {
		interactive, compact = true, true
		if depth == nil {
			d := efficientDepth
			depth = &d
		}
		maxChars = efficientMaxChars
	}
	if p.MaxChars != nil {
		maxChars = *p.MaxChars
	}
	pg, err := s.lazyPage(p.TargetID)
	if err != nil {
		return nil, err
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 500
	}
	limit = min(limit, 2000)
	sctx, cancel := context.WithTimeout(ctx, timeout(p.TimeoutMs, 20000, 500, 120000))
	defer cancel()
	var text, url string
	inPage := false // cut at maxChars in the page already
	if format == "aria" {
		if text, err = ariaSnapshot(sctx, pg, limit); err != nil {
			return nil, err
		}
	} else {
		o := snapOpts{Selector: p.Selector, Frame: p.Frame, Interactive: interactive, Compact: compact, Depth: depth, URLs: p.URLs}
		if !p.Diff { // a diff is cut after it is taken
			o.MaxChars = maxChars
		}
		c, err := takeSnapshot(sctx, pg, o)
		if err != nil {
			return nil, err
		}
		text, inPage, url = c.text, c.truncated, c.url
	}
	if url == "" {
		if info, _ := pg.Info(); info != nil {
			url = info.URL
		}
	}
	state := ""
	details := map[string]any{"ok": true, "format": format, "targetId": string(pg.TargetID), "url": url}
	if format == "ai" {
		key := snapKey(p, interactive, compact, depth)
		prev, found := swapBaseline(s.p.Dir, string(pg.TargetID), key, url, text, inPage)
		if p.Diff {
			text, state = diffText(prev, found, text)
			details["diff"] = state
		}
	}
	text, truncated := truncate(text, maxChars)
	truncated = truncated || inPage
	present := text
	if state == "changed" {
		present = diffLines(text)
	}
	refs, st := summarize(present)
	details["snapshot"], details["refs"], details["stats"], details["truncated"] = text, refs, st, truncated
	return &tools.Result{Content: []tools.Block{tools.TextBlock(text)}, Details: details}, nil
}
