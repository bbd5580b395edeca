package browser

import (
	"context"
	"strconv"

	"github.com/go-rod/rod/lib/proto"
	"github.com/openclaw-go/openclaw/tools"
)

// tabAction is the original CLI's `browser tab ...`: list, new [label],
// label <tab> <label>, select <n>, close [n]. A position (select, close)
// is index from 0, or a number in targetId counting from 1, as the CLI
// types it; anything else in targetId names the tab as everywhere.
func tabAction(ctx context.Context, env *tools.Env, s *session, p params) (any, error) {
	switch p.Op {
	case "", "list":
		ts, err := s.tabs()
		if err != nil {
			return nil, err
		}
		return tools.JSONResult(map[string]any{"ok": true, "tabs": ts})
	case "new":
		label := ""
		if p.Label != "" {
			l, err := validLabel(p.Label)
			if err != nil {
				return nil, err
			}
			label = l
		}
		pg, err := s.b.Page(proto.TargetCreateTarget{URL: "about:blank"})
		if err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "tab new: %v", err)
		}
		s.setCurrent(pg.TargetID)
		ts, err := s.labelTabs(pg.TargetID, label)
		if err != nil {
			return nil, err
		}
		t, _ := tabOf(ts, pg.TargetID)
		t.TargetID, t.Current = string(pg.TargetID), true
		return tools.JSONResult(map[string]any{"ok": true, "tab": t})
	case "label":
		if p.TargetID == "" {
			return nil, tools.Errorf(tools.CodeInvalidParams, "targetId is required")
		}
		if p.Label == "" {
			return nil, tools.Errorf(tools.CodeInvalidParams, "label is required")
		}
		label, err := validLabel(p.Label)
		if err != nil {
			return nil, err
		}
		id, err := s.target(p.TargetID)
		if err != nil {
			return nil, err
		}
		ts, err := s.labelTabs(id, label)
		if err != nil {
			return nil, err
		}
		t, _ := tabOf(ts, id)
		return tools.JSONResult(map[string]any{"ok": true, "tab": t})
	case "select", "close":
		id, err := s.tabAt(p)
		if err != nil {
			return nil, err
		}
		if p.Op == "close" {
			if err := s.closeTab(s.ctx, id); err != nil {
				return nil, err
			}
			return tools.JSONResult(map[string]any{"ok": true, "targetId": string(id)})
		}
		pg, err := s.page(string(id))
		if err != nil {
			return nil, err
		}
		if _, err := pg.Activate(); err != nil {
			return nil, tools.Errorf(tools.CodeFailed, "tab select: %v", err)
		}
		s.setCurrent(id)
		return tools.JSONResult(map[string]any{"ok": true, "targetId": string(id)})
	}
	return nil, tools.Errorf(tools.CodeInvalidParams, "unknown tab op %q (list, new, label, select, close)", p.Op)
}

// tabAt is the tab select and close act on: the position (index from 0,
// or a targetId of digits counting from 1), else the named tab; close
// with neither closes the current tab, select needs one.
func (s *session) tabAt(p params) (proto.TargetTargetID, error) {
	index := -1
	if p.Index != nil {
		index = *p.Index
	} else if n, err := strconv.Atoi(p.TargetID); err == nil {
		if n < 1 {
			return "", tools.Errorf(tools.CodeInvalidParams, "tab position counts from 1 (got %d)", n)
		}
		index = n - 1
	}
	if index < 0 {
		if p.TargetID == "" && p.Op == "select" {
			return "", tools.Errorf(tools.CodeInvalidParams, "index is required")
		}
		return s.target(p.TargetID)
	}
	ts, err := s.tabs()
	if err != nil {
		return "", err
	}
	if index >= len(ts) {
		return "", tools.Errorf(tools.CodeNotFound, "tab not found: index %d of %d tabs", index, len(ts))
	}
	return proto.TargetTargetID(ts[index].TargetID), nil
}
