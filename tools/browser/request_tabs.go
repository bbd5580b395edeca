package browser

import (
	"context"
	"encoding/json"
	"fmt"
)

// tabsRoute is GET /tabs: a browser that is not running has no tabs
// ({running:false, tabs:[]}, as the original answers), not an error.
func tabsRoute(ctx context.Context, c *routeCall) (any, error) {
	args, err := c.args("tabs", nil)
	if err != nil {
		return nil, err
	}
	if running, err := c.running(ctx, args); err != nil || !running {
		return map[string]any{"running": false, "tabs": []any{}}, err
	}
	return c.invoke(ctx, "tabs", args)
}

// running asks the status action whether the profile's browser answers.
func (c *routeCall) running(ctx context.Context, args map[string]any) (bool, error) {
	st, err := c.invoke(ctx, "status", profileOnly(args))
	if err != nil {
		return false, err
	}
	return st["cdpReady"] == true, nil
}

func profileOnly(args map[string]any) map[string]any {
	out := map[string]any{}
	if p, ok := args["profile"]; ok {
		out["profile"] = p
	}
	return out
}

// tabsActionRoute is POST /tabs/action {action: list|new|label|select|
// close, index?, targetId?, label?}, the original CLI's `browser tab ...`
// (1-based on the command line, 0-based here).
func tabsActionRoute(ctx context.Context, c *routeCall) (any, error) {
	action, _ := c.body["action"].(string)
	rawIndex, hasIndex := c.body["index"]
	delete(c.body, "action")
	delete(c.body, "index")
	index := 0
	if hasIndex && rawIndex != nil {
		n, ok := rawIndex.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i < 0 {
			return nil, routeError(400, "index must be a non-negative integer")
		}
		index = int(i)
	}
	switch action {
	case "list":
		res, err := tabsRoute(ctx, c)
		if err != nil {
			return nil, err
		}
		m := res.(map[string]any)
		return map[string]any{"ok": true, "tabs": m["tabs"]}, nil
	case "new":
		c.body["url"] = "about:blank"
		tab, err := openRoute(ctx, c)
		if err != nil {
			return nil, err
		}
		return map[string]any{"ok": true, "tab": tab}, nil
	case "label":
		args, err := c.args("tab", nil)
		if err != nil {
			return nil, err
		}
		args["op"] = "label"
		return c.invoke(ctx, "tab", args)
	case "select", "close":
		if action == "select" && (!hasIndex || rawIndex == nil) {
			return nil, routeError(400, "index is required")
		}
		args, err := c.args("tabs", nil)
		if err != nil {
			return nil, err
		}
		list, err := c.invoke(ctx, "tabs", args)
		if err != nil {
			return nil, err
		}
		tabs, _ := list["tabs"].([]any)
		if index >= len(tabs) {
			return nil, routeError(404, fmt.Sprintf("tab not found: index %d of %d tabs", index, len(tabs)))
		}
		tab, _ := tabs[index].(map[string]any)
		verb := map[string]string{"select": "focus", "close": "close"}[action]
		a := profileOnly(args)
		a["targetId"] = tab["targetId"]
		if _, err := c.invoke(ctx, verb, a); err != nil {
			return nil, err
		}
		return map[string]any{"ok": true, "targetId": tab["targetId"]}, nil
	}
	return nil, routeError(400, "unknown tab action")
}
