package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/client"
	"github.com/openclaw-go/openclaw/tools"
)

// Issue 30 item 18: every tool command's --json and --query work on the
// data, the same for every family, run here or relayed. The walk goes over
// every tool action of the registry and runs each one that can run on a
// fresh machine (read-only with no required params, or given params
// below) through the real CLI against a real `openclaw serve`. For each it
// also asks the gateway directly (tools.invoke, as the original's clients
// do): that answer stays the agent-facing result ({content, details}),
// and where it is the data twice (its text the JSON of its details) the
// CLI prints the details — for --json, for --query, and for the relayed
// (--remote) run of an action that runs here.
func TestEveryToolCommandPrintsItsData(t *testing.T) {
	g := startGateway(t, "")
	// One machine: the CLI and the gateway share the state dir (and so
	// the memory notes), as a user's commands and their gateway do.
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	files := map[string]string{
		filepath.Join(g.state, "workspace", "memory", "a.md"): "# Budget\nThe kiosk budget was approved.\n",
		filepath.Join(g.state, "workspace", "MEMORY.md"):      "# Prefs\nGreen tea.\n",
		filepath.Join(work, "notes.txt"):                      "one\ntwo\n",
		filepath.Join(work, "edit.txt"):                       "alpha\n",
	}
	reset := func() { // before each run: an edit finds its text again
		for p, body := range files {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("HOME", dir)
	t.Setenv("OPENCLAW_STATE_DIR", g.state)
	t.Setenv("OPENCLAW_GATEWAY_URL", g.url)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", "sig")
	t.Setenv("NO_COLOR", "1")

	// Params for actions that need some to succeed on a fresh machine.
	given := map[string]map[string]any{
		"read":                         {"path": filepath.Join(work, "notes.txt")},
		"write":                        {"path": filepath.Join(work, "new.txt"), "content": "x"},
		"edit":                         {"path": filepath.Join(work, "edit.txt"), "oldText": "alpha", "newText": "beta"},
		"exec":                         {"command": "echo hi"},
		"memory_search":                {"query": "kiosk budget"},
		"memory_get":                   {"path": "MEMORY.md"},
		"memory_index":                 {},
		"process.list":                 {},
		"session_status":               {},
		"gateway.config.schema.lookup": {"path": "gateway.port"},
	}
	// The data families' commands that must be walked and print data (a
	// walk that quietly ran none of them would prove nothing).
	mustBeData := []string{"nodes.pending", "nodes.status", "sessions_list", "agents_list", "memory_search",
		"memory_get", "browser.status", "browser.profiles"}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := client.Dial(ctx, client.Options{URL: g.url, Token: "sig"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	run := func(args ...string) (string, int) {
		reset()
		var out, errb bytes.Buffer
		code := Main(append([]string{"openclaw"}, args...), strings.NewReader(""), &out, &errb)
		return out.String(), code
	}
	keys := func(v gjson.Result) string {
		var k []string
		v.ForEach(func(key, _ gjson.Result) bool {
			k = append(k, key.String())
			return true
		})
		sort.Strings(k)
		return strings.Join(k, ",")
	}

	walked, data := map[string]bool{}, map[string]bool{}
	var skipped []string
	for _, a := range tools.All() {
		if a.Tool == "" || a.Hidden {
			continue
		}
		params, ok := given[a.ID()]
		if !ok {
			if !a.ReadOnly || gjson.Get(a.Schema, "required.#").Int() > 0 {
				skipped = append(skipped, a.ID())
				continue
			}
			params = map[string]any{}
		}
		multi := len(tools.ToolActions(a.Tool)) > 1 || a.Verb != ""
		path := actionPath(a, multi)
		pj, _ := json.Marshal(params)
		cli := append(append([]string{}, path...), "--params", string(pj), "--json")
		out, code := run(cli...)
		if code != 0 {
			// Needs what a fresh machine lacks (a running browser, a
			// node): not walked, and said.
			skipped = append(skipped, a.ID()+" (exit "+gjson.Get(out, "error.code").String()+")")
			continue
		}
		walked[a.ID()] = true

		// The gateway's own answer, as the original's clients get it.
		args := map[string]any{}
		for k, v := range params {
			args[k] = v
		}
		if a.Verb != "" {
			args["action"] = a.Verb
		}
		reset()
		wire, err := conn.Call(ctx, "tools.invoke", map[string]any{"name": a.Tool, "args": args})
		if err != nil {
			t.Errorf("%s: tools.invoke: %v", a.ID(), err)
			continue
		}
		w := gjson.ParseBytes(wire)
		if !w.Get("ok").Bool() {
			t.Errorf("%s: tools.invoke failed where the CLI did not: %s", a.ID(), wire)
			continue
		}
		output := w.Get("output")
		got := gjson.Parse(out)
		if !output.Get("content").IsArray() {
			// An action whose result is plain data (the gateway tool's
			// config.get): printed as it is.
			if keys(got) != keys(output) {
				t.Errorf("%s --json: want the data as tools.invoke answers it (keys %s), got %s", a.ID(), keys(output), out)
			}
			data[a.ID()] = true
			continue
		}
		_, twice := jsonResultDetails([]byte(output.Raw))
		if !twice {
			// Text plus facts about it (a file read, a command's
			// output): the result is its own data.
			if !got.Get("content").IsArray() {
				t.Errorf("%s --json: want the result {content, details} (its text is the answer), got %s", a.ID(), out)
			}
			continue
		}
		data[a.ID()] = true
		if got.Get("content").Exists() || keys(got) != keys(output.Get("details")) {
			t.Errorf("%s --json: want the data (keys %s), got %s", a.ID(), keys(output.Get("details")), out)
			continue
		}
		if got.IsObject() {
			var first string
			got.ForEach(func(k, _ gjson.Result) bool {
				first = k.String()
				return false
			})
			// The same part of the data (its value may move between two
			// runs: a timestamp), never null as it was from the envelope.
			q, code := run(append(cli[:len(cli)-1], "--query", first)...)
			qv, want := gjson.Parse(q), got.Get(first)
			if code != 0 || strings.TrimSpace(q) == "null" || qv.Type != want.Type || qv.IsArray() != want.IsArray() {
				t.Errorf("%s --query %s: exit %d, %q; want the data's %s (%s)", a.ID(), first, code, q, first, want.Raw)
			}
		}
		if a.Where != tools.Gateway {
			rel, code := run(append(cli, "--remote")...)
			if r := gjson.Parse(rel); code != 0 || r.Get("content").Exists() || keys(r) != keys(got) {
				t.Errorf("%s --remote --json: exit %d, want the data as run here (keys %s), got %s", a.ID(), code, keys(got), rel)
			}
		}
	}
	for _, id := range mustBeData {
		if !walked[id] || !data[id] {
			t.Errorf("%s: walked %v, data %v; want it run and printed as data", id, walked[id], data[id])
		}
	}
	t.Logf("walked %d tool commands (%d print data); not walked (they need params, a browser or a node): %s",
		len(walked), len(data), strings.Join(skipped, ", "))
}
