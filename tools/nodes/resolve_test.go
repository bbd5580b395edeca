package nodes_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// One resolver for every family that targets a node (issue 30 item 19):
// a node named "Build Box" is reached as build-box (the docs' example),
// "Build Box", its id and an id prefix, by the nodes tool, canvas, exec
// host=node and browser target=node alike; before, only canvas folded the
// punctuation and the others answered `unknown node "build-box"`. Two
// nodes with that name are an ambiguity every family reports.
func TestOneNodeResolverForEveryFamily(t *testing.T) {
	g := startGateway(t, t.TempDir(), "", 0)
	op := operator(t, g)
	commands := append([]string{"canvas.hide", "browser.proxy"}, hostCommands...)
	n := paired(t, g, op, "Build Box", commands)
	ran := make(chan gjson.Result, 64)
	host := nodeHost(n, ran)
	answer := func(req gjson.Result) (map[string]any, bool) {
		switch req.Get("command").String() {
		case "canvas.hide":
			return map[string]any{"ok": true, "payloadJSON": `{"ok":true}`}, true
		case "browser.proxy":
			pj, _ := json.Marshal(map[string]any{"result": map[string]any{"running": true, "profile": "openclaw"}})
			return map[string]any{"ok": true, "payloadJSON": string(pj)}, true
		}
		return host(req)
	}
	n.answer = answer
	id := n.id.DeviceID
	families := map[string]func(q string) map[string]any{
		"nodes describe": func(q string) map[string]any {
			return map[string]any{"_tool": "nodes", "action": "describe", "node": q}
		},
		"nodes which": func(q string) map[string]any {
			return map[string]any{"_tool": "nodes", "action": "which", "node": q, "bins": []string{"sh"}}
		},
		"canvas hide": func(q string) map[string]any { return map[string]any{"_tool": "canvas", "action": "hide", "node": q} },
		"exec host=node": func(q string) map[string]any {
			return map[string]any{"_tool": "exec", "command": "true", "host": "node", "node": q}
		},
		"browser on node": func(q string) map[string]any {
			return map[string]any{"_tool": "browser", "action": "status", "target": "node", "node": q}
		},
		"nodes invoke": func(q string) map[string]any {
			return map[string]any{"_tool": "nodes", "action": "invoke", "node": q, "command": "system.which", "params": `{"bins":["sh"]}`}
		},
		"nodes run (exec)": func(q string) map[string]any {
			return map[string]any{"_tool": "nodes", "action": "run", "node": q, "command": []string{"true"}}
		},
	}
	split := func(args map[string]any) (string, map[string]any) {
		tool := args["_tool"].(string)
		delete(args, "_tool")
		return tool, args
	}
	for _, q := range []string{"build-box", "Build Box", "BUILD_BOX", id, id[:8]} {
		for fam, mk := range families {
			tool, args := split(mk(q))
			r := call(t, op, "tools.invoke", map[string]any{"name": tool, "args": args})
			if !r.Get("ok").Bool() {
				t.Errorf("%s --node %q: %s", fam, q, r.Get("error").Raw)
			}
		}
	}
	if d := toolCall(t, op, "nodes", map[string]any{"action": "describe", "node": "build-box"}); !strings.Contains(d.Raw, id) {
		t.Errorf("describe build-box: %s", d.Raw)
	}

	// A second connected node whose name folds to the same: ambiguous,
	// with both named, for every family (exit 2, never a guess).
	m := paired(t, g, op, "build box!", commands)
	m.answer = answer
	for fam, mk := range families {
		tool, args := split(mk("build-box"))
		e := toolError(t, op, tool, args)
		msg := e.Get("message").String()
		if e.Get("code").String() != "INVALID_PARAMS" || !strings.Contains(msg, `node "build-box" is ambiguous`) ||
			!strings.Contains(msg, "Build Box") || !strings.Contains(msg, "build box!") {
			t.Errorf("%s with two Build Boxes: %s", fam, e.Raw)
		}
	}
	// The id still picks one.
	if r := call(t, op, "tools.invoke", map[string]any{"name": "exec", "args": map[string]any{"command": "true", "host": "node", "node": id[:8]}}); !r.Get("ok").Bool() {
		t.Errorf("exec by id prefix beside a namesake: %s", r.Raw)
	}
}
